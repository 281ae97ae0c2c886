// Lints the page's modules (src/py421/server/static); tsc checks their types.
import js from "@eslint/js";
import globals from "globals";

// Player names and the server's text reach the page: they go in as text (h(), textContent)
// or attribute values, never parsed as HTML.
const message = "put text in with h() or textContent, never as HTML";
const NO_HTML = [
  ...["innerHTML", "outerHTML", "insertAdjacentHTML", "createContextualFragment"].map((property) => ({ property, message })),
  ...["write", "writeln"].map((property) => ({ object: "document", property, message })),
];

export default [
  {
    files: ["**/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    rules: {
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-shadow": "error",
      "no-implicit-coercion": ["error", { allow: ["!!"] }],
      "no-restricted-properties": ["error", ...NO_HTML],
      "no-eval": "error",
      "no-new-func": "error",
    },
  },
];
