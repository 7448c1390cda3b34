// Fills the page's texts from the extension's catalogues (_locales/LANG/messages.json):
// every element with data-i18n="messageId" gets that message as its text.
import { api } from "./media.js";

export function translatePage() {
    const language = api.i18n.getUILanguage();
    document.documentElement.lang = language;
    for (const element of document.querySelectorAll("[data-i18n]")) {
        element.textContent = api.i18n.getMessage(element.dataset.i18n);
    }
    const title = document.querySelector("title[data-i18n]");
    if (title) document.title = title.textContent;
}
