// The toolbar button's word on the last hand-off the background made (the context menu, a
// caught download): a failure shows as a "!" with its sentence as the tooltip, for the popup to
// repeat; a success clears it.
import { api, describe, handOff } from "./media.js";

async function reportFailure(error) {
    const text = describe(error);
    await api.storage.session.set({ lastError: { text, hostMissing: error?.messageId === "hostMissing" } });
    await api.action.setBadgeBackgroundColor({ color: "#c01c28" });
    await api.action.setBadgeText({ text: "!" });
    await api.action.setTitle({ title: text });
}

async function reportSuccess() {
    await api.storage.session.remove("lastError");
    await api.action.setBadgeText({ text: "" });
    await api.action.setTitle({ title: api.i18n.getMessage("actionTitle") });
}

/** Hands `request` over (see handOff) and says how it went on the toolbar button; true when Fetchplay took it. */
export async function send(request) {
    try {
        await handOff(request);
        await reportSuccess();
        return true;
    } catch (error) {
        await reportFailure(error);
        return false;
    }
}
