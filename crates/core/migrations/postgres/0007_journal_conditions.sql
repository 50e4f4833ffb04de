-- Each journal entry keeps the condition its write checked, so a row reads
-- back as seat-state's `Change` without reconstructing the hold it followed:
-- the deadline an extend, confirm or expire found, and the status a release
-- found. Rows written before are filled from the journal itself: that hold's
-- deadline is its latest created or extended entry's, and a released hold
-- was expired if an expired entry came before.
ALTER TABLE journal ADD COLUMN checked_deadline BIGINT;
ALTER TABLE journal ADD COLUMN checked_status TEXT CHECK (checked_status = 'HELD' OR checked_status = 'EXPIRED');
UPDATE journal SET checked_deadline = (
    SELECT before.expires_at FROM journal AS before
    WHERE before.hold_id = journal.hold_id AND before.show_id = journal.show_id
      AND before.version < journal.version AND (before.action = 'created' OR before.action = 'extended')
    ORDER BY before.version DESC LIMIT 1)
WHERE action = 'extended' OR action = 'confirmed' OR action = 'expired';
UPDATE journal SET checked_status = CASE WHEN EXISTS (
    SELECT 1 FROM journal AS before
    WHERE before.hold_id = journal.hold_id AND before.show_id = journal.show_id
      AND before.version < journal.version AND before.action = 'expired') THEN 'EXPIRED' ELSE 'HELD' END
WHERE action = 'released';
