/* The tables of this device, kept in IndexedDB: written by the worker that plays
 * them (worker.js) after every step, read back by it at its start and by the
 * page for the list of kept games. No DOM here: it runs in both.
 */

const DB = "py421";
const STORE = "tables";

/**
 * A kept table as py421.page.local.LocalTable.save writes it.
 * @typedef {{ code: string, mode: string, kept_at?: number, record: { rules: { name: string }, players: string[], final?: { phase?: string } } }} Kept
 */

/** @type {Promise<IDBDatabase> | null} */
let opened = null;

/** The database, opened once (a step's save goes in at once, with no opening before it). */
function openDb() {
  if (opened) return opened;
  opened = new Promise((resolve, reject) => {
    const asked = indexedDB.open(DB, 1);
    asked.onupgradeneeded = () => asked.result.createObjectStore(STORE, { keyPath: "code" });
    asked.onsuccess = () => {
      const db = asked.result;
      // closed by the browser (storage cleared, another version opened): opened again when next used
      db.onclose = () => (opened = null);
      db.onversionchange = () => {
        db.close();
        opened = null;
      };
      resolve(db);
    };
    asked.onerror = () => reject(asked.error);
  });
  opened.catch(() => (opened = null)); // tried again next time
  return opened;
}

/**
 * Every table kept on this device, the one changed last first.
 * @returns {Promise<Kept[]>}
 */
export async function keptTables() {
  try {
    const db = await openDb();
    return await new Promise((resolve, reject) => {
      const asked = db.transaction(STORE).objectStore(STORE).getAll();
      asked.onsuccess = () => resolve(asked.result.sort((a, b) => (b.kept_at ?? 0) - (a.kept_at ?? 0)));
      asked.onerror = () => reject(asked.error);
    });
  } catch {
    return []; // storage disabled (private mode): nothing outlives the tab
  }
}

/**
 * One table kept on this device, as the last step played anywhere on it left it (another tab's too).
 * @param {string} code
 * @returns {Promise<Kept | undefined>}
 */
export async function keptTable(code) {
  try {
    const db = await openDb();
    return await new Promise((resolve, reject) => {
      const asked = db.transaction(STORE).objectStore(STORE).get(code);
      asked.onsuccess = () => resolve(asked.result);
      asked.onerror = () => reject(asked.error);
    });
  } catch {
    return undefined;
  }
}

/**
 * Delete a table this device keeps.
 * @param {string} code
 * @returns {Promise<void>}
 */
export async function unkeep(code) {
  const db = await openDb();
  await new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, "readwrite");
    tx.objectStore(STORE).delete(code);
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
}

/**
 * @param {Kept[]} saves
 * @param {boolean} [again] a second try, on a database opened afresh
 * @returns {Promise<void>}
 */
export async function keep(saves, again = false) {
  if (!saves.length) return;
  try {
    const db = await openDb();
    await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, "readwrite");
      for (const save of saves) tx.objectStore(STORE).put({ ...save, kept_at: Date.now() });
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
  } catch {
    // a connection the browser dropped (a phone's app in the background) fails every write on it
    opened = null;
    if (!again) await keep(saves, true);
    /* else not kept: the game goes on in this tab */
  }
}
