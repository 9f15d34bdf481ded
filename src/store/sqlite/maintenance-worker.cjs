// The SQLite maintenance thread (maintenance-thread.ts starts it): a
// connection of its own that runs PASSIVE WAL checkpoints on a timer and
// executes the statements it is sent (the background purge), one at a time,
// answering each by its id. Plain CommonJS, so a worker loads it as it is,
// from the sources and from the production bundle alike.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
db.pragma('synchronous = NORMAL');
const pageSize = db.pragma('page_size', { simple: true });

const timer = setInterval(() => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    // A PASSIVE checkpoint never ends with the log empty while the server keeps committing, so
    // the log is never restarted and grows for as long as the writes go on. Past the limit,
    // RESTART copies the few frames committed since, holding writers back meanwhile, and makes
    // the next commit start the log over (journal_size_limit then cuts the file back).
    // Each frame of the log is one page after a 24-byte frame header.
    if (log * (pageSize + 24) > workerData.walLimit) db.pragma('wal_checkpoint(RESTART)');
  } catch {
    // Busy or interrupted: the next round copies what is left.
  }
}, workerData.every);

// PRAGMA optimize takes the planner's statistics again for the tables that changed much since
// they were last taken (the server's connection reads them when they change); analysis_limit
// samples each index so that it stays quick on any size of database.
db.pragma(`analysis_limit = ${Number(workerData.analysisLimit)}`);
const optimizer = setInterval(() => {
  try {
    db.pragma('optimize');
  } catch {
    // Busy: the next hour tries again.
  }
}, workerData.optimizeEvery);

parentPort.on('message', (m) => {
  if (m === 'close') {
    clearInterval(timer);
    clearInterval(optimizer);
    db.close();
    parentPort.close();
    return;
  }
  try {
    const stmt = db.prepare(m.sql);
    if (stmt.reader) parentPort.postMessage({ id: m.id, rows: stmt.all(m.parameters) });
    else parentPort.postMessage({ id: m.id, rows: [], changes: stmt.run(m.parameters).changes });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
parentPort.postMessage('ready');
