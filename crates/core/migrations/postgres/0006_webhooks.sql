-- Signed webhooks: SQLite's 0010. Several processes' senders take lanes
-- with a lease (`FOR UPDATE SKIP LOCKED`, then conditional on the lease),
-- so each attempt is sent by exactly one process.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    events TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE webhook_lanes (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    show_id TEXT NOT NULL REFERENCES shows (id),
    version BIGINT NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    failing_since BIGINT,
    next_attempt_at BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT,
    attempts_total BIGINT NOT NULL DEFAULT 0,
    parked_total BIGINT NOT NULL DEFAULT 0,
    last_status INTEGER,
    last_error TEXT,
    last_attempt_at BIGINT,
    PRIMARY KEY (webhook_id, show_id)
);
