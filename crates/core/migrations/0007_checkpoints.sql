-- Checkpoints (bounded start-up): per show, the latest state a writer
-- wrote at one version (its kept holds and the sales of holds it let go,
-- as JSON). A load reads it and only the journal after it, so start-up
-- follows the holds that can still change, not the show's history. The
-- journal stays whole: it is the audit log and the export.
CREATE TABLE checkpoints (
    show_id TEXT PRIMARY KEY NOT NULL REFERENCES shows (id),
    version INTEGER NOT NULL,
    state TEXT NOT NULL
) STRICT, WITHOUT ROWID;
-- A hold the writer let go is read back by id (a retry, a read, a late
-- confirm): its entries, without scanning the show's journal.
CREATE INDEX journal_by_hold ON journal (hold_id, version) WHERE hold_id IS NOT NULL;
