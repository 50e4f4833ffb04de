-- The PostgreSQL schema: the SQLite one (migrations/000*.sql) in one step,
-- plus what several processes on one database need: the show's latest
-- decision instant (the floor of the database's clock for that show) and
-- outbox claims so each process's sweep takes different entries.
CREATE TABLE shows (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    seat_count BIGINT NOT NULL,
    area_count BIGINT NOT NULL,
    -- Rises by one with every change to the show's holds.
    version BIGINT NOT NULL DEFAULT 0,
    -- The latest instant any of its transitions was decided at.
    latest_at BIGINT,
    created_at BIGINT NOT NULL
);

CREATE TABLE show_definitions (
    show_id TEXT PRIMARY KEY REFERENCES shows (id),
    definition TEXT NOT NULL
);

CREATE TABLE sessions (
    token_sha256 TEXT PRIMARY KEY,
    holder_id TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE journal (
    show_id TEXT NOT NULL REFERENCES shows (id),
    version BIGINT NOT NULL,
    at BIGINT NOT NULL,
    hold_id TEXT NOT NULL,
    holder_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('created', 'extended', 'confirmed', 'released', 'expired')),
    places TEXT,
    expires_at BIGINT,
    extensions BIGINT,
    late BOOLEAN,
    PRIMARY KEY (show_id, version)
);

CREATE TABLE hold_ids (
    hold_id TEXT PRIMARY KEY,
    show_id TEXT NOT NULL REFERENCES shows (id),
    holder_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    version BIGINT NOT NULL
);
CREATE INDEX hold_ids_by_holder ON hold_ids (holder_id, created_at);

CREATE TABLE outbox (
    seq BIGSERIAL PRIMARY KEY,
    show_id TEXT NOT NULL,
    hold_id TEXT NOT NULL,
    deadline BIGINT NOT NULL,
    done_at BIGINT,
    -- A process's sweep took it until then (epoch ms on the database's clock).
    claimed_until BIGINT
);
CREATE INDEX outbox_due ON outbox (deadline) WHERE done_at IS NULL;
