# Regenerates the patches beside this file from the current tree, after the
# code they touch has moved: each entry puts back one bug issue 10 or 11
# fixed (edits), records `git diff` as NAME.patch and restores the files.
# Run from anywhere: python3 crates/sim/mutations/regenerate.py
import re
import subprocess
import sys
ROOT = str(__import__('pathlib').Path(__file__).resolve().parents[3])
def edit(path, old, new, count=1):
    # Restoring a file afterwards would throw away uncommitted work in it.
    if subprocess.run(['git', 'diff', '--quiet', 'HEAD', '--', path], cwd=ROOT).returncode != 0:
        if not getattr(edit, 'touched', set()) >= {path}:
            sys.exit(f'{path} has uncommitted changes: commit them first')
    edit.touched = getattr(edit, 'touched', set()) | {path}
    p = f'{ROOT}/{path}'; s = open(p).read()
    if old not in s: sys.exit(f'{path}: not found: {old[:60]!r}')
    open(p, 'w').write(s.replace(old, new, count))
def record(name, files):
    diff = subprocess.run(['git', 'diff', '--', *files], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    open(f'{ROOT}/crates/sim/mutations/{name}.patch', 'w').write(diff)
    subprocess.run(['git', 'checkout', '--', *files], cwd=ROOT, check=True)
    edit.touched = set()
A = 'crates/core/src/engine/actor.rs'
D = 'crates/core/src/engine/decide.rs'
M = 'crates/core/src/engine/mod.rs'
C = 'crates/core/src/engine/commands.rs'
H = 'crates/server/src/routes/holds.rs'

edit(A, 'self.latest = store_now.unwrap_or_else(|| self.clock.now()).max(self.latest);', 'self.latest = store_now.unwrap_or_else(|| self.clock.now());')
record('clock-steps-back', [A])

edit(A, 'if self.broken && self.reload().await.is_err() {', 'if false {')
record('uncommitted-state-served', [A])

# A reload announces nothing of what was stored unannounced (Live changes v4).
edit(A, '            self.events.publish(changed);\n', '            drop(changed);\n')
record('reload-changes-unannounced', [A])

edit('crates/seat-state/src/venue/mod.rs', 'let newer = |other: usize| self.holds[other].created_version < hold.created_version;', 'let newer = |other: usize| (self.holds[other].created_at, &self.holds[other].id) < (hold.created_at, &hold.id);')
record('same-instant-order-by-id', ['crates/seat-state/src/venue/mod.rs'])

edit(D, 'if foreign.contains(&request.hold_id) || self.belongs_elsewhere(&request.hold_id) {', 'if foreign.contains(&request.hold_id) {')
edit(D, '    /// Whether another show already has a hold with this id.\n', '    /// Whether another show already has a hold with this id.\n    #[allow(dead_code)]\n')
edit('crates/core/src/store/memory.rs', '                && inner.hold_ids.contains_key(&hold.id)', '                && inner.hold_ids.get(&hold.id).is_some_and(|(owner, ..)| owner == show_id)')
record('hold-id-per-show', [D, 'crates/core/src/store/memory.rs'])

# Holds that left memory are never recalled from the store (issue 15).
RT = 'crates/core/src/engine/retain.rs'
edit(RT, '        let mut missing: Vec<HoldId> = ids.into_iter().filter(|id| self.state.hold(id).is_none()).collect();', '        let mut missing: Vec<HoldId> = ids.into_iter().filter(|_| false).collect();')
record('evicted-holds-not-recalled', [RT])

# A create's own id is not looked up among holds that left memory (issue 15).
edit(RT, '            Write::Create { body, .. } => body.body.hold_id.as_deref().and_then(|raw| HoldId::parse(raw).ok()),', '            Write::Create { .. } => None,')
record('created-ids-not-recalled', [RT])

# A checkpoint's retired sales of areas are not restored (issue 15).
RS = 'crates/seat-state/src/venue/retire.rs'
edit(RS, '                slot.sold = slot.sold.saturating_add(*places);\n', '')
record('checkpoint-area-sales-lost', [RS])

# Each write decided at the instant its request arrived (as before issue 10).
edit(C, '        admission: Admission,\n        reply: Reply<Written>,', '        admission: Admission,\n        now: ServerMillis,\n        reply: Reply<Written>,')
edit(C, '        hold: HoldId,\n        reply: Reply<Written>,', '        hold: HoldId,\n        now: ServerMillis,\n        reply: Reply<Written>,')
edit(M, '''        admission: Admission,
    ) -> Result<Decided<Written>, EngineError> {
        let generated_id = generated_hold_id(self.ids.0.now(), &*self.ids.1)?;
        self.ask(|reply| Command::Write(Write::Create { holder, body, generated_id, admission, reply })).await''', '''        admission: Admission,
        now: ServerMillis,
    ) -> Result<Decided<Written>, EngineError> {
        let generated_id = generated_hold_id(self.ids.0.now(), &*self.ids.1)?;
        self.ask(|reply| Command::Write(Write::Create { holder, body, generated_id, admission, now, reply })).await''')
edit(M, '''    pub async fn act(&self, action: Action, holder: HolderId, hold: HoldId) -> Result<Decided<Written>, EngineError> {
        self.ask(|reply| Command::Write(Write::Act { action, holder, hold, reply })).await''', '''    pub async fn act(&self, action: Action, holder: HolderId, hold: HoldId, now: ServerMillis) -> Result<Decided<Written>, EngineError> {
        self.ask(|reply| Command::Write(Write::Act { action, holder, hold, now, reply })).await''')
edit(D, '            Write::Create { holder, body, generated_id, admission, reply: _ } => {', '            Write::Create { holder, body, generated_id, admission, now, reply: _ } => {\n                let now = *now;')
edit(D, '            Write::Act { action, holder, hold, reply: _ } => {', '            Write::Act { action, holder, hold, now, reply: _ } => {\n                let now = *now;')
edit(D, '        let (decision, hold_id, holder) = match write {', '        let (decision, hold_id, holder, now) = match write {')
edit(D, '                (decision, request.hold_id, holder)\n            }', '                (decision, request.hold_id, holder, now)\n            }')
edit(D, '                (decision, hold.clone(), holder)\n            }', '                (decision, hold.clone(), holder, now)\n            }')
edit(H, '''async fn create_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Path(show_id)''', '''async fn create_hold(
    _: HoldWrites,
    session: Session,
    State(state): State<AppState>,
    Now(now): Now,
    Path(show_id)''')
edit(H, 'show.create_hold(holder, body, admission).await?', 'show.create_hold(holder, body, admission, now).await?')
edit(H, 'async fn act(state: &AppState, session: &Session, hold_id: &str, action: Action) -> Result<Response, AppError> {', 'async fn act(state: &AppState, session: &Session, hold_id: &str, action: Action, now: seat_state::ServerMillis) -> Result<Response, AppError> {')
edit(H, 'show.act(action, holder(session), hold).await?', 'show.act(action, holder(session), hold, now).await?')
for a in ['Extend', 'Confirm', 'Release']:
    edit(H, f'act(&state, &session, &hold_id, Action::{a}).await', f'act(&state, &session, &hold_id, Action::{a}, now).await')
p = f'{ROOT}/{H}'; s = open(p).read()
s = re.sub(r"(async fn (extend|confirm|release)_hold\(\n    _: HoldWrites,\n    session: Session,\n    State\(state\): State<AppState>,\n)", r"\1    Now(now): Now,\n", s)
open(p, 'w').write(s)
R = 'crates/server/src/routes/admin.rs'
edit(R, '''async fn release_hold(
    _: Admin,
    State(state): State<AppState>,
''', '''async fn release_hold(
    _: Admin,
    State(state): State<AppState>,
    crate::extract::Now(now): crate::extract::Now,
''')
edit(R, 'show.act(Action::OperatorRelease, HolderId::new(OPERATOR), hold).await?', 'show.act(Action::OperatorRelease, HolderId::new(OPERATOR), hold, now).await?')
record('decided-at-request-arrival', [C, M, D, H, R])

# Several processes: a read answers from memory without catching up.
edit(A, '''        } else if (!reads.is_empty() || (refresh && self.events.watched()))
            && self.store.shared()''', '''        } else if (refresh && self.events.watched())
            && self.store.shared()''')
record('shared-reads-without-catch-up', [A])

# Holds found only in this process's memory (before issues 10 and 11): a
# hold another process made, or one that left memory, is not found.
edit(M, '            None => self.store.hold_show(hold).await.map_err(storage)?,', '            None => None,')
record('shared-index-in-memory-only', [M])
# Blocked seats not enforced by the rules (issue 13): a blocked seat is held.
V = 'crates/seat-state/src/venue/mod.rs'
edit(V, '''        !self.blocked[at]
            && self.seat_channel[at]''', '''        self.seat_channel[at]''')
record('blocked-seats-holdable', [V])
# Webhooks (issue 29): a failed event's retry is written past it, so the
# lane's cursor skips the event and it is never delivered.
W = 'crates/core/src/webhooks/sender.rs'
edit(W, """        let retry = LaneStep {
            version: entry.version - 1,""", """        let retry = LaneStep {
            version: entry.version,""")
record('webhook-failed-event-skipped', [W])
# Webhooks (issue 29): a failing event does not hold up the next one, so a
# show's events are first received out of version order.
edit(W, """        self.fold(working, retry).await?;
        self.flush(working).await?;
        Ok(Sent::Stop)""", """        self.fold(working, retry).await?;
        self.flush(working).await?;
        Ok(Sent::Next)""")
record('webhook-next-before-ack', [W])
# Webhooks (issue 29): a 5xx taken for an acknowledgement, so an event the
# receiver refused to take is never delivered.
edit(W, "Ok(Ok(status)) if (200..300).contains(&status) => (Some(status), None),", "Ok(Ok(status)) if (200..600).contains(&status) => (Some(status), None),")
record('webhook-5xx-taken-as-ack', [W])
# Webhooks (issue 29): a webhook's kinds are ignored, so it gets events it
# did not subscribe to.
edit(W, "for entry in page.iter().filter(|entry| webhook.events.contains(&EventKind::of(&entry.change))) {", "for entry in page.iter().filter(|entry| !EventKind::of(&entry.change).name().is_empty()) {")
record('webhook-kinds-ignored', [W])
print('ok')
