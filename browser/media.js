// What counts as a video, and the hand-off of one link to Fetchplay's native host.
//
// Shared by the background script (context menu, caught downloads, media seen on the wire) and
// the popup. Nothing here evaluates page text: links are parsed with URL and checked for http or
// https; the page's cookies go to the native host only, never anywhere else.

export const api = globalThis.browser ?? globalThis.chrome;

/** The native messaging host's name (its manifest is installed with Fetchplay). */
export const HOST = "io.github.fetchplay.fetchplay";

/** The extensions of the links Fetchplay takes, video and audio, and the kind each one is shown as. */
const KIND_BY_EXTENSION = {
    mp4: "MP4", webm: "WebM", mkv: "MKV", mov: "MOV", m3u8: "HLS", mpd: "DASH",
    m4a: "M4A", mp3: "MP3", ogg: "Ogg", oga: "Ogg", opus: "Opus", flac: "FLAC", wav: "WAV", weba: "WebM",
};

/** Media types of playlists and manifests (lower case, without parameters). */
const KIND_BY_TYPE = {
    "application/vnd.apple.mpegurl": "HLS",
    "application/x-mpegurl": "HLS",
    "audio/mpegurl": "HLS",
    "audio/x-mpegurl": "HLS",
    "application/dash+xml": "DASH",
};

/** Video types that are pieces of a stream (HLS and DASH segments), not something to save. */
const SEGMENT_TYPES = new Set(["video/mp2t", "video/iso.segment"]);

/** The native messaging contract's caps (bytes of UTF-8). */
const MAX_URL_BYTES = 8192;
const MAX_USER_AGENT_BYTES = 1024;
const MAX_FILE_NAME_BYTES = 255;
const MAX_COOKIES = 300;

const encoder = new TextEncoder();

/** The link as a URL when it is http or https, else null. */
export function webURL(text) {
    try {
        const url = new URL(text);
        return url.protocol === "http:" || url.protocol === "https:" ? url : null;
    } catch {
        return null;
    }
}

/** The kind ("MP4", "HLS", …) a file name's extension says, or null. */
export function kindOfName(name) {
    const match = /\.([a-z0-9]{2,5})$/i.exec(name ?? "");
    return match ? KIND_BY_EXTENSION[match[1].toLowerCase()] ?? null : null;
}

/** The kind a link's path says, or null (also for a link that is not http or https). */
export function kindOfLink(text) {
    const url = webURL(text);
    return url ? kindOfName(url.pathname) : null;
}

/**
 * The kind a Content-Type says (video, audio, a playlist or manifest), or null. `segments`
 * says whether stream pieces count; `audio` whether audio types do (a page's sounds and a
 * stream's audio pieces are no media worth listing, a download of an audio file is).
 */
export function kindOfType(contentType, { segments = true, audio = true } = {}) {
    const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (KIND_BY_TYPE[type]) return KIND_BY_TYPE[type];
    const [major, minor] = type.split("/");
    if (!minor || !(major === "video" || (audio && major === "audio"))) return null;
    if (!segments && SEGMENT_TYPES.has(type)) return null;
    return minor.toUpperCase();
}

/** Response types that say nothing about the bytes, where the link's name decides. */
export function typeSaysNothing(contentType) {
    const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
    return !type || type === "application/octet-stream" || type === "binary/octet-stream";
}

/** The last part of a path or file name, without folders (both kinds of slash). */
export function baseName(text) {
    return (text ?? "").split(/[\\/]/).pop().trim();
}

/** `text` cut to at most `limit` bytes of UTF-8, never inside a character. */
function truncated(text, limit) {
    if (encoder.encode(text).length <= limit) return text;
    let result = "";
    let bytes = 0;
    for (const character of text) {
        bytes += encoder.encode(character).length;
        if (bytes > limit) break;
        result += character;
    }
    return result;
}

/** A name to show for a link: its file name, else its host. */
export function displayName(text) {
    const url = webURL(text);
    if (!url) return text;
    let name = "";
    try {
        name = decodeURIComponent(baseName(url.pathname));
    } catch {
        name = baseName(url.pathname);
    }
    return name || url.host;
}

/** An error a person can act on, with the message id of its text. */
export class HandOffError extends Error {
    constructor(messageId, detail = "") {
        super(detail || messageId);
        this.messageId = messageId;
        this.detail = detail;
    }
}

/** Whether a failure of sendNativeMessage means the host is not installed (or not allowed). */
export function isHostMissing(error) {
    return error instanceof HandOffError && error.messageId === "hostMissing";
}

/** The text of a hand-off failure, in the browser's language. */
export function describe(error) {
    if (error instanceof HandOffError) {
        return error.messageId === "hostRefused"
            ? api.i18n.getMessage("hostRefused", [error.detail])
            : api.i18n.getMessage(error.messageId);
    }
    return api.i18n.getMessage("handOffFailed", [String(error?.message ?? error)]);
}

/** Sends one message to the native host; a host that cannot be started is HandOffError("hostMissing"). */
async function sendToHost(message) {
    try {
        return await api.runtime.sendNativeMessage(HOST, message);
    } catch (error) {
        throw new HandOffError("hostMissing", String(error?.message ?? error));
    }
}

/** The host's version when it answers, else throws (hostMissing when it cannot be started). */
export async function pingHost() {
    const answer = await sendToHost({ type: "ping" });
    if (answer?.ok !== true) throw new HandOffError("hostRefused", String(answer?.error ?? ""));
    return String(answer.version ?? "");
}

/**
 * The id of the cookie store a download or tab uses, so a private window's or a container's
 * cookies go with its links and the default store's never do. Firefox names it
 * (`cookieStoreId` on tabs and downloads); Chromium lists its stores with their tabs, and a
 * download says only that it is `incognito`: then the store of an incognito tab is the one.
 * Undefined: the default store; null: a private store that cannot be found, so no cookies.
 */
export async function cookieStoreOf({ cookieStoreId, tabId, incognito }) {
    if (cookieStoreId) return cookieStoreId;
    if (!incognito && !(tabId >= 0)) return undefined;
    try {
        const stores = await api.cookies.getAllCookieStores();
        const ofTab = stores.find((store) => tabId >= 0 && store.tabIds.includes(tabId));
        if (ofTab) return ofTab.id;
        if (!incognito) return undefined;
        const privateTabs = new Set((await api.tabs.query({})).filter((tab) => tab.incognito).map((tab) => tab.id));
        return stores.find((store) => store.tabIds.some((id) => privateTabs.has(id)))?.id ?? null;
    } catch {
        return incognito ? null : undefined;
    }
}

/** The cookies the browser would send to `url` from `storeId` (HttpOnly ones too), as the cookies API gives them. */
async function cookiesFor(url, storeId) {
    if (storeId === null) return [];
    try {
        const query = storeId ? { url, storeId } : { url };
        return (await api.cookies.getAll(query)).slice(0, MAX_COOKIES);
    } catch {
        return [];
    }
}

/**
 * Hands `url` to Fetchplay with the page's context: the page as referrer, the browser's
 * User-Agent, the cookies for the link from the store of its window or container (`store`:
 * what `cookieStoreOf` reads) and the name the browser would have saved it under. A link from
 * a private window is marked so, and Fetchplay keeps its context in memory only.
 * Resolves when Fetchplay took it; throws HandOffError otherwise.
 */
export async function handOff({ url, referrer, fileName, store = {} }) {
    const link = webURL(url);
    if (!link) throw new HandOffError("notWebLink");
    if (encoder.encode(link.href).length > MAX_URL_BYTES) throw new HandOffError("linkTooLong");
    const message = { type: "download", url: link.href };
    const page = webURL(referrer);
    if (page && encoder.encode(page.href).length <= MAX_URL_BYTES) message.referrer = page.href;
    message.userAgent = truncated(navigator.userAgent, MAX_USER_AGENT_BYTES);
    const name = truncated(baseName(fileName), MAX_FILE_NAME_BYTES);
    if (name) message.fileName = name;
    const cookies = await cookiesFor(link.href, await cookieStoreOf(store));
    if (cookies.length > 0) message.cookies = cookies;
    if (store.incognito) message.private = true;
    const answer = await sendToHost(message);
    if (answer?.ok !== true) throw new HandOffError("hostRefused", String(answer?.error ?? ""));
}
