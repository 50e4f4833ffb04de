-- Checkpoints and reading one hold's entries back: as SQLite's 0007.
CREATE TABLE checkpoints (
    show_id TEXT PRIMARY KEY REFERENCES shows (id),
    version BIGINT NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX journal_by_hold ON journal (hold_id, version) WHERE hold_id IS NOT NULL;
