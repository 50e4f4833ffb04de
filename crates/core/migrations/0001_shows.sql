-- Shows. The version row is updated by every commit, so it stays small: the
-- definition (seats, areas, rules: megabytes for an arena) lives apart.
CREATE TABLE shows (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    seat_count INTEGER NOT NULL,
    area_count INTEGER NOT NULL,
    -- Rises by one with every change to the show's holds; every batch of
    -- writes is conditional on the version its decisions were made at.
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
) STRICT;

-- The validated definition, whole, as JSON: it never changes once created,
-- and creating the same show again compares against it.
CREATE TABLE show_definitions (
    show_id TEXT PRIMARY KEY NOT NULL REFERENCES shows (id),
    definition TEXT NOT NULL
) STRICT;
