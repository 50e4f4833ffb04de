//! A throwaway PostgreSQL for the tests: `initdb` into a temporary folder,
//! `pg_ctl` on a free port, one empty database, stopped and removed on drop.
//! It serves plain text and TLS alike: `openssl` makes a throwaway CA and a
//! server certificate for `127.0.0.1` and `localhost` at start (Debian's
//! `postgresql` depends on `openssl`, through `ssl-cert`).
//!
//! When we run as root (CI sessions do) the server runs as Debian's
//! unprivileged `postgres` user, which owns the folder: PostgreSQL refuses
//! to run as root. A watchdog in its own process group stops the server and
//! removes the folder if this process dies without dropping the guard
//! (Ctrl-C, `kill`), so nothing outlives the command.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::install;
use crate::run::{Step, output_of};

/// The variable the tests read the database URL from.
pub const URL_VARIABLE: &str = "SEATHOLD_TEST_POSTGRES";

/// The variable the tests read the path of the CA certificate that signed
/// the server's (PEM) from, for `sslmode=require&sslrootcert=…`.
pub const CA_VARIABLE: &str = "SEATHOLD_TEST_POSTGRES_CA";

/// The database the tests get (empty: they migrate it themselves).
const DATABASE: &str = "seathold_test";

/// The unprivileged user the server runs as when we are root.
const USER: &str = "postgres";

/// A running throwaway PostgreSQL; stopped (`-m immediate`) and its folder
/// removed on drop.
pub struct TestPostgres {
    /// `postgres://postgres@127.0.0.1:PORT/seathold_test` (trust auth, TCP).
    pub url: String,
    /// The throwaway CA's certificate (PEM), in the data folder.
    pub ca: PathBuf,
    port: u16,
    bin: PathBuf,
    dir: PathBuf,
    /// Run the server's programs as `postgres` (we are root).
    as_postgres: bool,
    running: bool,
    watchdog: Option<Child>,
}

impl TestPostgres {
    /// Creates, starts and fills in the cluster, printing each part's time.
    pub fn start() -> Result<Self, String> {
        let bin = install::postgres_bin().ok_or("PostgreSQL is not installed: run `cargo xtask setup --test`")?;
        let version = bin.parent().and_then(Path::file_name).map_or_else(String::new, |v| v.to_string_lossy().into());
        let step = Step::start(&format!("throwaway PostgreSQL {version} (initdb, pg_ctl start, createdb)"));
        let as_postgres = install::is_root();
        // As root, /tmp rather than $TMPDIR: `postgres` must reach the folder.
        let base = if as_postgres { PathBuf::from("/tmp") } else { std::env::temp_dir() };
        let unique = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        let dir = base.join(format!("seathold-pg-{}-{unique:x}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // From here on, dropping `postgres` cleans up whatever exists.
        let mut postgres = Self {
            url: String::new(),
            ca: PathBuf::new(),
            port: 0,
            bin,
            dir,
            as_postgres,
            running: false,
            watchdog: None,
        };

        let part = Instant::now();
        if as_postgres {
            postgres.give_folder_to_postgres()?;
        }
        postgres.watchdog = Some(postgres.spawn_watchdog()?);
        timed("temporary folder and watchdog", part);

        let part = Instant::now();
        let data = postgres.dir.join("data");
        let mut initdb = postgres.program("initdb");
        initdb.arg("-D").arg(&data).args(["-U", USER, "--auth=trust", "-E", "UTF8", "--no-locale"]);
        quiet(&mut initdb, "initdb")?;
        timed("initdb", part);

        let part = Instant::now();
        postgres.ca = postgres.make_certificates(&data)?;
        timed("TLS certificates (openssl)", part);

        let part = Instant::now();
        let port = postgres.start_on_a_free_port()?;
        postgres.port = port;
        timed(&format!("pg_ctl start (port {port})"), part);

        let part = Instant::now();
        let mut createdb = postgres.program("createdb");
        createdb.arg("-h").arg(&postgres.dir).args(["-p", &port.to_string(), "-U", USER, DATABASE]);
        quiet(&mut createdb, "createdb")?;
        timed(&format!("createdb {DATABASE}"), part);

        postgres.url = format!("postgres://{USER}@127.0.0.1:{port}/{DATABASE}");
        step.done()?;
        Ok(postgres)
    }

    /// Creates another empty database; returns its URL.
    pub fn create_database(&self, name: &str) -> Result<String, String> {
        let mut createdb = self.program("createdb");
        createdb.arg("-h").arg(&self.dir).args(["-p", &self.port.to_string(), "-U", USER, name]);
        quiet(&mut createdb, "createdb")?;
        Ok(format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port))
    }

    /// A client program of the server's bin folder (`psql`, `pgbench`), run
    /// as ourselves, pointed at this cluster over TCP as `postgres`.
    pub fn client(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin.join(name));
        // libpq would take the server's TLS offer (sslmode=prefer): plain
        // text, as Seathold connects unless told `sslmode=require`.
        command
            .env("PGHOST", "127.0.0.1")
            .env("PGPORT", self.port.to_string())
            .env("PGUSER", USER)
            .env("PGSSLMODE", "disable")
            .stdin(Stdio::null());
        command
    }

    /// The folder (data, log, socket) this cluster lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the server still runs (its `postmaster.pid` is there).
    pub fn is_running(&self) -> bool {
        self.dir.join("data").join("postmaster.pid").exists()
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    fn give_folder_to_postgres(&self) -> Result<(), String> {
        let id = |flag: &str| -> Result<u32, String> {
            output_of(Command::new("id").args([flag, USER])).and_then(|id| id.parse().ok()).ok_or_else(|| {
                format!("there is no `{USER}` user to run PostgreSQL as: run `cargo xtask setup --test`")
            })
        };
        std::os::unix::fs::chown(&self.dir, Some(id("-u")?), Some(id("-g")?))
            .map_err(|e| format!("chown {USER} {}: {e}", self.dir.display()))
    }

    /// A program from the server's bin folder, as `postgres` when we are
    /// root, run in the cluster's folder (which `postgres` can enter).
    fn program(&self, name: &str) -> Command {
        self.as_server_user(&self.bin.join(name))
    }

    /// `program`, as `postgres` when we are root, in the cluster's folder.
    fn as_server_user(&self, program: &Path) -> Command {
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", USER, "--"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        command.current_dir(&self.dir).stdin(Stdio::null());
        command
    }

    /// A throwaway CA (its key deleted once it signed) and a server
    /// certificate for 127.0.0.1 and localhost, P-256, valid a week, made in
    /// `data` by the server's user: `server.key` is the server's alone
    /// (0600), as PostgreSQL demands. Returns the CA certificate's path.
    fn make_certificates(&self, data: &Path) -> Result<PathBuf, String> {
        const CONFIG: &str = "[req]
distinguished_name = dn
prompt = no
[dn]
CN = seathold-test
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
";
        std::fs::write(data.join("certificates.cnf"), CONFIG).map_err(|e| format!("writing certificates.cnf: {e}"))?;
        let openssl = |what: &str, args: &str| {
            let mut openssl = self.as_server_user(Path::new("openssl"));
            openssl.current_dir(data).args(args.split_whitespace());
            quiet(&mut openssl, what).map_err(|e| format!("{e}\n(the throwaway PostgreSQL's TLS needs `openssl`)"))
        };
        let new_key = "-config certificates.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
        openssl(
            "openssl req (CA)",
            &format!(
                "req -x509 {new_key} -days 7 -subj /CN=seathold-test-ca -extensions ca -keyout ca.key -out ca.crt"
            ),
        )?;
        openssl(
            "openssl req (server)",
            &format!("req -new {new_key} -subj /CN=localhost -keyout server.key -out server.csr"),
        )?;
        openssl(
            "openssl x509 (server)",
            "x509 -req -days 7 -in server.csr -CA ca.crt -CAkey ca.key -set_serial 2 \
             -extfile certificates.cnf -extensions server -out server.crt",
        )?;
        for leftover in ["ca.key", "server.csr", "certificates.cnf"] {
            std::fs::remove_file(data.join(leftover)).map_err(|e| format!("removing {leftover}: {e}"))?;
        }
        let server_key = data.join("server.key");
        std::fs::set_permissions(&server_key, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .map_err(|e| format!("chmod 600 {}: {e}", server_key.display()))?;
        Ok(data.join("ca.crt"))
    }

    /// `pg_ctl start` on a port that was free a moment ago; another process
    /// may take it in between, so a few tries.
    fn start_on_a_free_port(&mut self) -> Result<u16, String> {
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port()?;
            // pg_ctl passes -o through a shell: the folder is quoted.
            // TLS files are named relative to the data folder.
            let options = format!(
                "-p {port} -k '{}' -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on \
                 -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key",
                self.dir.display()
            );
            let mut start = self.program("pg_ctl");
            start.arg("-D").arg(self.dir.join("data")).arg("-l").arg(self.dir.join("log"));
            start.args(["-o", &options, "-w", "-t", "60", "start"]);
            match quiet(&mut start, "pg_ctl start") {
                Ok(()) => {
                    self.running = true;
                    return Ok(port);
                }
                Err(error) => last_error = format!("{error}\nserver log:\n{}", self.log()),
            }
        }
        Err(last_error)
    }

    /// A shell in its own process group (Ctrl-C in the terminal does not
    /// reach it) that waits for this process to go, then stops the server
    /// and removes the folder unless we did already.
    fn spawn_watchdog(&self) -> Result<Child, String> {
        const SCRIPT: &str = r#"pid=$1; dir=$2; shift 2
while kill -0 "$pid" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
if [ -d "$dir" ]; then "$@" -D "$dir/data" stop -m immediate -w; rm -rf "$dir"; fi"#;
        let mut command = Command::new("sh");
        command.args(["-c", SCRIPT, "seathold-postgres-watchdog"]).arg(std::process::id().to_string()).arg(&self.dir);
        if self.as_postgres {
            command.args(["runuser", "-u", USER, "--"]);
        }
        command
            .arg(self.bin.join("pg_ctl"))
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("starting the PostgreSQL watchdog: {e}"))
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let started = Instant::now();
        if self.running {
            let mut stop = self.program("pg_ctl");
            stop.arg("-D").arg(self.dir.join("data")).args(["stop", "-m", "immediate", "-w"]);
            if let Err(error) = quiet(&mut stop, "pg_ctl stop") {
                eprintln!("    {error}");
            }
        }
        let stopped = started.elapsed();
        if let Err(error) = std::fs::remove_dir_all(&self.dir) {
            eprintln!("    removing {}: {error}", self.dir.display());
        }
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        println!(
            "    throwaway PostgreSQL: pg_ctl stop -m immediate {:.2} s, folder removed {:.2} s",
            stopped.as_secs_f64(),
            (started.elapsed() - stopped).as_secs_f64()
        );
    }
}

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("finding a free port: {e}"))?;
    listener.local_addr().map(|address| address.port()).map_err(|e| format!("finding a free port: {e}"))
}

/// Runs a command with its output captured; on failure the error carries it.
fn quiet(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("cannot start {what} ({:?}): {e}", command.get_program()))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

fn timed(part: &str, started: Instant) {
    println!("    {part}: {:.2} s", started.elapsed().as_secs_f64());
}

/// `cargo xtask postgres`: one throwaway PostgreSQL for a developer, until Ctrl-C.
pub fn serve() -> Result<(), String> {
    install::postgres()?;
    let postgres = TestPostgres::start()?;
    println!("{URL_VARIABLE}={}", postgres.url);
    println!("{CA_VARIABLE}={}", postgres.ca.display());
    println!("    TLS too: {}?sslmode=require&sslrootcert={}", postgres.url, postgres.ca.display());
    println!("    folder {} (log: {}/log)", postgres.dir().display(), postgres.dir().display());
    println!("    running until Ctrl-C, which stops it and removes the folder");
    while postgres.is_running() {
        std::thread::sleep(Duration::from_secs(1));
    }
    Err(format!("PostgreSQL stopped by itself; its log:\n{}", postgres.log()))
}
