-- Customers' sessions. Only a hash of the token is stored: a copy of the
-- database does not let anyone act as a customer.
CREATE TABLE sessions (
    token_sha256 TEXT PRIMARY KEY NOT NULL,
    holder_id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
