/* What this browser remembers between visits: the language, the last name
 * typed, and the secret token of each seat it holds. Storage can be disabled
 * (private mode): then nothing outlives the tab.
 */

/**
 * A seat this browser holds at a table; the token proves it to the server.
 * @typedef {object} HeldSeat
 * @property {number} seat
 * @property {string} token
 * @property {boolean} [creator]
 */

/** @param {string} key */
export function safeGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
export function safeSet(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* the seat then lasts as long as the tab */
  }
}

/**
 * The seat and secret token this browser holds at table `code`, if any.
 * @param {string} code
 * @returns {HeldSeat | null}
 */
export function loadSeat(code) {
  try {
    const c = JSON.parse(safeGet(`py421:${code}`) ?? "null");
    return c && typeof c.token === "string" ? c : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} code
 * @param {HeldSeat} seat
 */
export function saveSeat(code, seat) {
  safeSet(`py421:${code}`, JSON.stringify(seat));
}

/** The name typed last, to fill the next name field. */
export function lastName() {
  return safeGet("py421:name") || "";
}

/** @param {string} name */
export function rememberName(name) {
  safeSet("py421:name", name);
}
