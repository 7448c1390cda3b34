// The toolbar popup: the page itself for Fetchplay to read for its videos, the media the
// current tab loaded or links to, one click each to Fetchplay, and, when Fetchplay's native
// host cannot be started, how to install it.
//
// Opened as a page (popup.html?tab=ID) it lists that tab instead of the active one.
import { api, describe, displayName, handOff, isHostMissing, kindOfLink, pingHost, webURL } from "./media.js";
import { translatePage } from "./i18n.js";

/** Links read from a page at most. */
const PAGE_LINKS = 5000;

/** Runs in the page (serialised: it uses nothing from here): its video and source elements' links and every link with the name its download attribute gives. */
function pageLinks(limit) {
    const media = [];
    for (const element of document.querySelectorAll("video, video source, audio source")) {
        const url = element.currentSrc || element.src;
        if (url) media.push({ url, element: true });
    }
    const links = [];
    for (const anchor of document.querySelectorAll("a[href]")) {
        if (links.length >= limit) break;
        links.push({ url: anchor.href, fileName: anchor.getAttribute("download") ?? "" });
    }
    return { media, links };
}

async function currentTab() {
    const requested = Number(new URLSearchParams(location.search).get("tab"));
    if (Number.isInteger(requested) && requested > 0) return api.tabs.get(requested);
    const [tab] = await api.tabs.query({ active: true, currentWindow: true });
    return tab;
}

/** The tab's media: its elements and links first (in page order), then what it loaded. */
async function tabMedia(tab) {
    const found = new Map();
    const add = (url, kind, fileName = "") => {
        if (webURL(url) && kind && !found.has(url)) found.set(url, { url, kind, fileName });
    };
    try {
        const frames = await api.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, func: pageLinks, args: [PAGE_LINKS] });
        for (const { result } of frames) {
            for (const { url } of result?.media ?? []) add(url, kindOfLink(url) ?? api.i18n.getMessage("kindVideo"));
            for (const { url, fileName } of result?.links ?? []) add(url, kindOfLink(url), fileName);
        }
    } catch {
        // A page the extension may not read (the browser's own pages): what it loaded still counts.
    }
    // What the tab loaded is its last web page's: a page since then that is not on the web (the
    // browser's own, a file) clears no list, as the background hears only web requests.
    if (!webURL(tab.url ?? "")) return [...found.values()];
    const key = "media:" + tab.id;
    const { [key]: loaded = [] } = await api.storage.session.get(key);
    for (const { url, kind } of loaded) add(url, kind);
    return [...found.values()];
}

function setStatus(text, isError = false) {
    const status = document.getElementById("status");
    status.textContent = text;
    status.classList.toggle("error", isError);
}

function hostIsMissing() {
    return !document.getElementById("host-missing").hidden;
}

function showHostMissing() {
    document.getElementById("host-missing").hidden = false;
    for (const button of document.querySelectorAll("#this-page, #media button")) button.disabled = true;
}

/**
 * Hands `request` over from `button` (disabled meanwhile) and says how it went; `sent` is the
 * sentence for success. The request goes with the cookies of the tab's window or container.
 */
async function handOffFrom(button, tab, request, sent) {
    button.disabled = true;
    setStatus(api.i18n.getMessage("popupSending"));
    try {
        const store = { cookieStoreId: tab.cookieStoreId, tabId: tab.id, incognito: Boolean(tab.incognito) };
        await handOff({ ...request, store });
        setStatus(sent);
    } catch (error) {
        setStatus(describe(error), true);
        if (isHostMissing(error)) showHostMissing();
    } finally {
        button.disabled = hostIsMissing();
    }
}

function mediaButton(entry, tab) {
    const button = document.createElement("button");
    button.className = "card";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = entry.fileName || displayName(entry.url);
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = entry.kind;
    const where = document.createElement("span");
    where.className = "where";
    where.textContent = entry.url;
    button.title = entry.url;
    button.append(name, kind, where);
    button.addEventListener("click", () => handOffFrom(button, tab, { url: entry.url, referrer: tab.url, fileName: entry.fileName },
                                                      api.i18n.getMessage("popupSent", [name.textContent])));
    const item = document.createElement("li");
    item.append(button);
    return item;
}

/**
 * The "This page" button: the tab's page, for Fetchplay to read for its videos, with the page
 * as its own referrer. Only an http or https page: the browser's own pages, files and the like
 * have nothing Fetchplay could ask for, and the button says so instead.
 */
function showThisPage(tab) {
    const button = document.getElementById("this-page");
    const where = button.querySelector(".where");
    // Chromium gives the tab's URL only for pages the extension may read (http and https).
    const page = webURL(tab?.url ?? "");
    if (!page) {
        button.disabled = true;
        button.classList.add("not-web");
        where.textContent = api.i18n.getMessage("popupPageNotWeb");
        return;
    }
    where.textContent = page.href;
    button.title = page.href;
    button.disabled = false;
    button.addEventListener("click", () => handOffFrom(button, tab, { url: page.href, referrer: page.href },
                                                      api.i18n.getMessage("popupPageSent", [page.host])));
}

async function showCatching() {
    const { catchDownloads } = await api.storage.local.get("catchDownloads");
    document.getElementById("catching").textContent =
        api.i18n.getMessage(catchDownloads === false ? "popupCatchOff" : "popupCatchOn");
}

async function showLastError() {
    const { lastError } = await api.storage.session.get("lastError");
    if (!lastError) return;
    setStatus(lastError.text, true);
    if (lastError.hostMissing) showHostMissing();
    await api.storage.session.remove("lastError");
    await api.action.setBadgeText({ text: "" });
}

async function main() {
    translatePage();
    document.getElementById("options").addEventListener("click", () => api.runtime.openOptionsPage());
    const host = pingHost().then(() => true, (error) => {
        if (isHostMissing(error)) return false;
        setStatus(describe(error), true);
        return true;
    });
    const tab = await currentTab();
    showThisPage(tab);
    const list = document.getElementById("media");
    const entries = tab ? await tabMedia(tab) : [];
    list.replaceChildren(...entries.map((entry) => mediaButton(entry, tab)));
    // Not on a web page, the button above already says why there is nothing.
    document.getElementById("empty").hidden = entries.length > 0 || !webURL(tab?.url ?? "");
    await Promise.all([showCatching(), showLastError()]);
    if (!(await host)) showHostMissing();
    document.body.dataset.ready = "true"; // for the screenshots and the browser test
}

main();
