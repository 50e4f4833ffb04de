-- Sessions expire after an idle time (issue 15): when a request last used
-- each one. Written at most every tenth of the idle time per session, so
-- it costs the writer next to nothing. Existing sessions count as seen
-- when they were made.
ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET last_seen_at = created_at;
