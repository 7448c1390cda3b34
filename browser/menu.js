// The context menu: "Download with Fetchplay" on a link, a video, an audio element, and on the
// page itself (a right-click on no link), which hands over the page for Fetchplay to read for
// its videos.
//
// Registered by the background (createMenu at install and startup, menuClicked on a click).
import { api } from "./media.js";
import { send } from "./toolbar.js";

const MENU_ID = "fetchplay-download";

/** The item's contexts: "page" is a right-click on none of the others (no link, no media, no selection). */
const MENU_CONTEXTS = ["link", "video", "audio", "page"];

export async function createMenu() {
    await api.contextMenus.removeAll();
    api.contextMenus.create({ id: MENU_ID, title: api.i18n.getMessage("menuDownload"), contexts: MENU_CONTEXTS });
}

/** Runs in the page: the `download` attribute of the link to `href`, the name the browser would use. */
function downloadAttribute(href) {
    for (const anchor of document.querySelectorAll("a[download]")) {
        if (anchor.href === href) return anchor.getAttribute("download");
    }
    return "";
}

async function linkFileName(tab, frameId, href) {
    if (!tab?.id || tab.id < 0) return "";
    try {
        const [result] = await api.scripting.executeScript({
            target: { tabId: tab.id, frameIds: [frameId ?? 0] }, func: downloadAttribute, args: [href],
        });
        return typeof result?.result === "string" ? result.result : "";
    } catch {
        return ""; // a page the extension may not script (the browser's own pages)
    }
}

/**
 * What a click on the item hands over: the element's media, else the link, else the page.
 * The page goes as its own referrer, as a person who opened it would have come with it.
 */
function menuTarget(info, tab) {
    if (info.mediaType === "video" || info.mediaType === "audio") {
        return { url: info.srcUrl ?? "", referrer: info.frameUrl ?? info.pageUrl ?? tab?.url, kind: "media" };
    }
    if (info.linkUrl) return { url: info.linkUrl, referrer: info.frameUrl ?? info.pageUrl ?? tab?.url, kind: "link" };
    const page = info.pageUrl ?? tab?.url ?? "";
    return { url: page, referrer: page, kind: "page" };
}

/** The item's click: the target with the cookies of the tab's window or container. */
export async function menuClicked(info, tab) {
    if (info.menuItemId !== MENU_ID) return false;
    const { url, referrer, kind } = menuTarget(info, tab);
    // Only a link has a name of the page's choosing (its download attribute).
    const fileName = kind === "link" ? await linkFileName(tab, info.frameId, url) : "";
    const store = { cookieStoreId: tab?.cookieStoreId, tabId: tab?.id, incognito: Boolean(tab?.incognito) };
    return send({ url, referrer, fileName, store });
}
