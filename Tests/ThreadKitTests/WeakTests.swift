import ThreadKit
import Testing

/// A weak box reaches its object while someone else keeps it, and lets it go with them.
struct WeakTests {
    private final class Owner {}

    @Test func readsTheObjectUntilItsOwnerLetsGo() {
        var owner: Owner? = Owner()
        let box = Weak(owner)
        #expect(box.object === owner)
        owner = nil
        #expect(box.object == nil)
    }

    @Test func canBeSetAfterItIsMade() {
        let owner = Owner()
        let box = Weak<Owner>()
        #expect(box.object == nil)
        box.object = owner
        #expect(box.object === owner)
    }
}
