// @ts-check
import { h, render } from "preact";
import htm from "htm";

const html = htm.bind(h);
render(html`<p>UNO Royal Revenge</p>`, document.body);
