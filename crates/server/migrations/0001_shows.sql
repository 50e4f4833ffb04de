-- Shows. The validated definition (seats, areas, rules) is stored whole as
-- JSON: it never changes once created, and re-creating a show compares it.
CREATE TABLE shows (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    seat_count INTEGER NOT NULL,
    area_count INTEGER NOT NULL,
    -- Rises by one with every change to the show's holds; every batch of
    -- writes is conditional on the version its decisions were made at.
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
) STRICT;
