-- Shows, their seats and general-admission areas.
CREATE TABLE shows (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    -- The complete validated definition as JSON, for idempotent re-creation.
    definition TEXT NOT NULL,
    -- Rises with every change to the show's seats or areas.
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE seats (
    show_id TEXT NOT NULL REFERENCES shows (id),
    seat_id TEXT NOT NULL,
    -- Order in the definition, so maps come back as they were given.
    position INTEGER NOT NULL,
    sold INTEGER NOT NULL DEFAULT 0 CHECK (sold IN (0, 1)),
    hold_id TEXT,
    hold_expires_at INTEGER,
    PRIMARY KEY (show_id, seat_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE areas (
    show_id TEXT NOT NULL REFERENCES shows (id),
    area_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    capacity INTEGER NOT NULL CHECK (capacity >= 1),
    sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0 AND sold <= capacity),
    PRIMARY KEY (show_id, area_id)
) STRICT, WITHOUT ROWID;
