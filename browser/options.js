// The options page: whether video downloads the browser starts go to Fetchplay (on by default).
import { api } from "./media.js";
import { translatePage } from "./i18n.js";

async function main() {
    translatePage();
    const box = document.getElementById("catch");
    const { catchDownloads } = await api.storage.local.get("catchDownloads");
    box.checked = catchDownloads !== false;
    box.addEventListener("change", async () => {
        await api.storage.local.set({ catchDownloads: box.checked });
        document.getElementById("status").textContent = api.i18n.getMessage("optionsSaved");
    });
    document.body.dataset.ready = "true";
}

main();
