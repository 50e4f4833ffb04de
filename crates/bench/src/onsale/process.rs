//! What the server processes used, from `/proc/<pid>/…`: CPU time and
//! resident memory; and this machine's CPU count and model.

/// CPU seconds (user + system) the processes have used so far.
pub fn cpu_seconds(pids: &[u32]) -> anyhow::Result<f64> {
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    let mut total = 0.0;
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
        // Fields after the command name, which is in parentheses and may hold spaces.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
        let fields: Vec<&str> = after.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
        let field = |n: usize| fields.get(n).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
        total += (field(11) + field(12)) / ticks;
    }
    Ok(total)
}

/// Resident memory of the processes, in bytes (`VmRSS`).
pub fn resident_bytes(pids: &[u32]) -> anyhow::Result<u64> {
    let mut total = 0;
    for pid in pids {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
        let kilobytes = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next()?.parse::<u64>().ok())
            .ok_or_else(|| anyhow::anyhow!("no VmRSS for process {pid}"))?;
        total += kilobytes * 1024;
    }
    Ok(total)
}

/// Bytes the processes have handed to `write`-family system calls so far
/// (`wchar` of `/proc/<pid>/io`: `write` and `writev` to sockets and to
/// the database's files, not `send`); `None` when a process's `io` cannot
/// be read.
pub fn written_bytes(pids: &[u32]) -> Option<u64> {
    let mut total = 0;
    for pid in pids {
        let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
        total += io.lines().find_map(|line| line.strip_prefix("wchar:"))?.trim().parse::<u64>().ok()?;
    }
    Some(total)
}

/// This process's own CPU seconds: the generator's share of the cores.
pub fn own_cpu_seconds() -> anyhow::Result<f64> {
    cpu_seconds(&[std::process::id()])
}

/// `nproc` and the CPU model, for the figures' header.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|line| Some(line.strip_prefix("model name")?.split_once(':')?.1.trim().to_owned()))
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("{cores} cores, {model}")
}

/// Raises this process's open-file limit to its hard limit: 10,000 live
/// streams are 10,000 sockets. Returns the limit now in force.
pub fn raise_open_files() -> anyhow::Result<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // As root the hard limit may rise too; otherwise the hard limit is the most.
    let wanted = Rlimit { current: Some(65_536), maximum: Some(65_536.max(limit.maximum.unwrap_or(0))) };
    if setrlimit(Resource::Nofile, wanted).is_err() {
        setrlimit(Resource::Nofile, Rlimit { current: limit.maximum, maximum: limit.maximum })?;
    }
    Ok(getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX))
}
