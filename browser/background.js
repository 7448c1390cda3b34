// The extension's background: the context menu's events, the video downloads it takes over from the
// browser, and the media each tab loaded (for the popup).
//
// A Chromium service worker or a Firefox event page: it may be stopped between events, so what
// must outlive it sits in storage.session (this browser session) or storage.local (options).
import { api, baseName, kindOfLink, kindOfName, kindOfType, typeSaysNothing, webURL } from "./media.js";
import { createMenu, menuClicked } from "./menu.js";
import { send } from "./toolbar.js";

/** Milliseconds a new download's start may precede the extension's (an event wakes a stopped worker after the download was stamped). */
const START_SLACK = 10_000;
/** Milliseconds to wait for the name Chromium gives a download just after creating it. */
const NAME_WAIT = 1_000;
/** Links remembered per tab. */
const MEDIA_PER_TAB = 100;

// ---- When this browser session first ran the extension ----------------------------------

/**
 * The first start of the extension in this browser session (milliseconds since the epoch).
 * Downloads older than that are the browser's history, which Chromium replays through
 * downloads.onCreated at startup: they are never taken over.
 */
const sessionStart = (async () => {
    const { startedAt } = await api.storage.session.get("startedAt");
    if (typeof startedAt === "number") return startedAt;
    const now = Date.now();
    await api.storage.session.set({ startedAt: now });
    return now;
})();

// ---- The context menu (menu.js) ----------------------------------------------------------

api.runtime.onInstalled.addListener(createMenu);
api.runtime.onStartup.addListener(createMenu);
api.contextMenus.onClicked.addListener(menuClicked);

// ---- Video downloads the browser starts ---------------------------------------------------

async function catchingDownloads() {
    const { catchDownloads } = await api.storage.local.get("catchDownloads");
    return catchDownloads !== false; // on unless switched off in the options
}

/** Names Chromium suggested (onDeterminingFilename), and who waits for one, by download id. */
const suggestedNames = new Map();
const nameWaiters = new Map();

if (api.downloads.onDeterminingFilename) {
    api.downloads.onDeterminingFilename.addListener((item, suggest) => {
        suggest(); // the browser's own choice stands
        const waiter = nameWaiters.get(item.id);
        if (waiter) waiter(item.filename);
        else suggestedNames.set(item.id, item.filename);
        setTimeout(() => suggestedNames.delete(item.id), NAME_WAIT);
    });
}

/**
 * The base name the browser would save `item` under: Firefox knows it when it creates the
 * download; Chromium says it a moment later (Content-Disposition or the link's download attribute).
 */
function browserFileName(item) {
    if (item.filename) return Promise.resolve(baseName(item.filename));
    if (suggestedNames.has(item.id)) return Promise.resolve(baseName(suggestedNames.get(item.id)));
    if (!api.downloads.onDeterminingFilename) return Promise.resolve("");
    return new Promise((resolve) => {
        const done = (name) => {
            nameWaiters.delete(item.id);
            clearTimeout(timer);
            resolve(baseName(name));
        };
        const timer = setTimeout(() => done(""), NAME_WAIT);
        nameWaiters.set(item.id, done);
    });
}

/** Whether a download may be media by what the browser knows before its name (it is paused early then). */
function looksLikeMedia(item) {
    return Boolean(kindOfType(item.mime) || kindOfLink(item.url) || kindOfLink(item.finalUrl));
}

/**
 * Whether a download is media Fetchplay takes: its file name and its type both say video or
 * audio. A video type on an `.exe` or a `.jar` name, or a video name with a type of another
 * kind or none (application/octet-stream), stays with the browser and its own checks: one of
 * the two alone is what a hostile page controls most easily. (Such a video can still be handed
 * over from the page's menu or the popup, where Fetchplay judges its bytes.)
 */
function isMedia(item, fileName) {
    const name = fileName || baseName(webURL(item.finalUrl || item.url)?.pathname);
    return Boolean(kindOfName(name)) && Boolean(kindOfType(item.mime));
}

/**
 * Whether pausing a download keeps its request open (Chromium), so that it can wait paused
 * while Fetchplay is asked. Firefox pauses by dropping the request and resumes with a new one
 * whose Referer is only the page's origin (seen with Firefox ESR 153), which a page that checks
 * its Referer refuses: there the browser's download runs on until Fetchplay has taken it.
 */
const pauseKeepsTheRequest = !api.runtime.getBrowserInfo; // a Firefox-only function

/** Takes the browser's copy away: cancelled (or its file removed when it already finished), then erased from the list. */
async function removeBrowserCopy(id) {
    await api.downloads.cancel(id).catch(() => {});
    const [item] = await api.downloads.search({ id });
    if (item?.state === "complete" && item.exists) await api.downloads.removeFile(id).catch(() => {});
    await api.downloads.erase({ id });
}

async function takeOver(item) {
    if (item.state !== "in_progress" || item.byExtensionId === api.runtime.id) return;
    if (!webURL(item.url)) return; // blob: and data: downloads are the page's own
    const [catching, startedAt] = await Promise.all([catchingDownloads(), sessionStart]);
    if (!catching || !(Date.parse(item.startTime) >= startedAt - START_SLACK)) return;
    // Paused at once when the type or the link already says media, so few bytes land twice.
    const pause = () => pauseKeepsTheRequest ? api.downloads.pause(item.id).then(() => true, () => false) : false;
    let paused = looksLikeMedia(item) && await pause();
    const fileName = await browserFileName(item);
    if (!isMedia(item, fileName)) {
        // Not media by both its name and its type: the browser keeps it.
        if (paused) await api.downloads.resume(item.id).catch(() => {});
        return;
    }
    if (!paused) paused = await pause();
    // The download's own window or container: Firefox names its store, Chromium says incognito.
    const store = { cookieStoreId: item.cookieStoreId, incognito: Boolean(item.incognito) };
    if (await send({ url: item.url, referrer: item.referrer, fileName, store })) {
        await removeBrowserCopy(item.id);
    } else if (paused) {
        // Fetchplay did not take it: the browser goes on with its own download.
        await api.downloads.resume(item.id).catch(() => {});
    }
}

api.downloads.onCreated.addListener((item) => {
    takeOver(item).catch((error) => console.error("Fetchplay: a download was left to the browser:", error));
});

// ---- Media each tab loaded --------------------------------------------------------------

/** One chain for every read-modify-write of the tabs' lists, so two responses never lose one. */
let mediaUpdates = Promise.resolve();
function updateMedia(tabId, change) {
    const key = "media:" + tabId;
    mediaUpdates = mediaUpdates.then(async () => {
        const { [key]: list = [] } = await api.storage.session.get(key);
        const next = change(list);
        if (next === null) await api.storage.session.remove(key);
        else if (next !== list) await api.storage.session.set({ [key]: next });
    }).catch(() => {});
}

function noteResponse(details) {
    if (details.tabId < 0 || details.statusCode >= 400) return;
    const header = (details.responseHeaders ?? []).find((h) => h.name.toLowerCase() === "content-type");
    const type = (header?.value ?? "").split(";")[0].trim().toLowerCase();
    const kind = kindOfType(type, { segments: false, audio: false }) ?? (typeSaysNothing(type) ? kindOfLink(details.url) : null);
    if (!kind) return;
    updateMedia(details.tabId, (list) => list.some((entry) => entry.url === details.url)
        ? list : [...list, { url: details.url, kind }].slice(-MEDIA_PER_TAB));
}

const everyWebLink = { urls: ["http://*/*", "https://*/*"] };
// Not images, scripts, styles or fonts: the worker is not woken for every piece of every page.
const mediaTypes = ["main_frame", "sub_frame", "media", "xmlhttprequest", "object", "other"];
api.webRequest.onHeadersReceived.addListener(noteResponse, { ...everyWebLink, types: mediaTypes }, ["responseHeaders"]);
// A new page in the tab starts a new list.
api.webRequest.onBeforeRequest.addListener((details) => {
    if (details.tabId >= 0) updateMedia(details.tabId, () => null);
}, { ...everyWebLink, types: ["main_frame"] });
api.tabs.onRemoved.addListener((tabId) => updateMedia(tabId, () => null));
