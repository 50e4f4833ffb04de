-- Signed webhooks (API.md "Box office (v3)"). The journal is what they
-- deliver; commits write nothing here. A lane is one webhook's deliveries
-- of one show: its cursor (every event up to `version` acknowledged,
-- parked or not of the webhook's kinds), the retry state of the next
-- event, a sender's lease, and counts for the operator. The secret is kept
-- as given: signing needs it; the API never shows it.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY NOT NULL,
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    -- The kinds delivered, a JSON array of names: ["held", "confirmed"].
    events TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_lanes (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    show_id TEXT NOT NULL REFERENCES shows (id),
    version INTEGER NOT NULL DEFAULT 0,
    -- Failed attempts at the event after `version`, since when, and when next.
    attempts INTEGER NOT NULL DEFAULT 0,
    failing_since INTEGER,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    -- The sender delivering it now, until when.
    lease_owner TEXT,
    lease_until INTEGER,
    attempts_total INTEGER NOT NULL DEFAULT 0,
    parked_total INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER,
    last_error TEXT,
    last_attempt_at INTEGER,
    PRIMARY KEY (webhook_id, show_id)
) STRICT, WITHOUT ROWID;
