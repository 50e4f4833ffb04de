-- Blocked seats: journal entries that name no hold (SQLite's 0005).
ALTER TABLE journal ALTER COLUMN hold_id DROP NOT NULL;
ALTER TABLE journal DROP CONSTRAINT journal_action_check;
ALTER TABLE journal ADD CONSTRAINT journal_action_check
    CHECK (action IN ('created', 'extended', 'confirmed', 'released', 'expired', 'blocked', 'unblocked'));
ALTER TABLE journal ADD CONSTRAINT journal_hold_named
    CHECK ((hold_id IS NULL) = (action IN ('blocked', 'unblocked')));
