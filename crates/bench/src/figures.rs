//! A run's figures as one table: each with its target when it has one (met
//! or MISSED) and its same-run baseline when one makes sense (with the
//! ratio); saved as JSON so a later run (PostgreSQL, 2 processes) prints
//! its figures beside this one's.

use serde_json::{Value, json};

/// A target a figure is held to.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Below(f64),
    AtMost(f64),
    AtLeast(f64),
}

impl Target {
    fn met(self, value: f64) -> bool {
        match self {
            Target::Below(limit) => value < limit,
            Target::AtMost(limit) => value <= limit,
            Target::AtLeast(limit) => value >= limit,
        }
    }

    fn text(self, unit: &str) -> String {
        let (sign, limit) = match self {
            Target::Below(limit) => ("<", limit),
            Target::AtMost(limit) => ("≤", limit),
            Target::AtLeast(limit) => ("≥", limit),
        };
        format!("{sign} {}", number(limit, unit))
    }

    fn json(self) -> Value {
        match self {
            Target::Below(limit) => json!({"below": limit}),
            Target::AtMost(limit) => json!({"atMost": limit}),
            Target::AtLeast(limit) => json!({"atLeast": limit}),
        }
    }
}

/// A value in its unit, as the tables print it.
fn number(value: f64, unit: &str) -> String {
    match unit {
        // A tick's batch is a few microseconds: say so rather than 0.0.
        "ms" if value.abs() < 1.0 => format!("{value:.3} {unit}"),
        "ms" | "KB" | "MB" | "×" => format!("{value:.1} {unit}"),
        // Cores busy: a tenth of a core is a large step at these loads.
        "cores" => format!("{value:.2} {unit}"),
        "µs" => format!("{value:.1} {unit}"),
        "" => format!("{value:.0}"),
        _ => format!("{value:.0} {unit}"),
    }
}

/// What a figure is read against: a value measured in the same run.
struct Baseline {
    name: String,
    value: f64,
}

struct Figure {
    key: String,
    name: String,
    value: f64,
    unit: &'static str,
    target: Option<Target>,
    baseline: Option<Baseline>,
}

/// What one run measured.
pub struct Figures {
    /// The bench's name in the JSON line (`onsale`, `queue`).
    bench: &'static str,
    label: String,
    /// What `count` counts (`customers`, `sessions`).
    counted: &'static str,
    count: usize,
    rows: Vec<Figure>,
    notes: Vec<String>,
}

impl Figures {
    pub fn new(bench: &'static str, label: &str, counted: &'static str, count: usize) -> Self {
        Self { bench, label: label.to_owned(), counted, count, rows: Vec::new(), notes: Vec::new() }
    }

    pub fn add(&mut self, key: &str, name: &str, value: f64, unit: &'static str, target: Option<Target>) {
        let row = Figure { key: key.to_owned(), name: name.to_owned(), value, unit, target, baseline: None };
        self.rows.push(row);
    }

    /// A figure beside its same-run baseline (in the same unit).
    pub fn add_beside(&mut self, key: &str, name: &str, value: f64, unit: &'static str, baseline: (&str, f64)) {
        self.add(key, name, value, unit, None);
        if let Some(row) = self.rows.last_mut() {
            row.baseline = Some(Baseline { name: baseline.0.to_owned(), value: baseline.1 });
        }
    }

    /// What the figures count (customers, sessions).
    pub fn count(&self) -> usize {
        self.count
    }

    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// Prints the table, saves it to `save`, and prints it beside the
    /// figures saved in `beside`.
    pub fn report(&self, save: Option<&std::path::Path>, beside: Option<&std::path::Path>) -> anyhow::Result<()> {
        self.print();
        if let Some(path) = save {
            self.save(path)?;
        }
        match beside {
            Some(path) => self.print_beside(path),
            None => Ok(()),
        }
    }

    fn print(&self) {
        println!("==> {} figures, {} ({} {})", self.bench, self.label, self.count, self.counted);
        let baselines = self.rows.iter().any(|row| row.baseline.is_some());
        let (wide, ratio) = if baselines { (44, 10) } else { (0, 0) };
        let head =
            if baselines { format!(" {:<wide$} | {:>ratio$} |", "same-run baseline", "ratio") } else { String::new() };
        println!("| {:<86} | {:>12} |{head} {:>10} | {:<6} |", "figure", "value", "target", "");
        let rule =
            if baselines { format!("{:-<w$}|{:-<r$}|", "", "", w = wide + 2, r = ratio + 2) } else { String::new() };
        println!("|{:-<88}|{:-<14}|{rule}{:-<12}|{:-<8}|", "", "", "", "");
        for row in &self.rows {
            let target = row.target.map_or(String::new(), |target| target.text(row.unit));
            let verdict = row.target.map_or("", |target| if target.met(row.value) { "met" } else { "MISSED" });
            let beside = match (&row.baseline, baselines) {
                (_, false) => String::new(),
                (None, true) => format!(" {:<wide$} | {:>ratio$} |", "", ""),
                (Some(base), true) => {
                    let text = format!("{} {}", base.name, number(base.value, row.unit));
                    let times = format!("{:.2}×", row.value / base.value.max(f64::MIN_POSITIVE));
                    format!(" {text:<wide$} | {times:>ratio$} |")
                }
            };
            println!(
                "| {:<86} | {:>12} |{beside} {target:>10} | {verdict:<6} |",
                row.name,
                number(row.value, row.unit)
            );
        }
        for note in &self.notes {
            println!("{note}");
        }
        let figures: serde_json::Map<String, Value> =
            self.rows.iter().map(|row| (row.key.clone(), json!(row.value))).collect();
        let mut line = json!({"bench": self.bench, "label": self.label, "figures": figures});
        line[self.counted] = json!(self.count);
        println!("{line}");
    }

    fn save(&self, path: &std::path::Path) -> anyhow::Result<()> {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| json!({"key": row.key, "name": row.name, "value": row.value, "unit": row.unit, "target": row.target.map(Target::json)}))
            .collect();
        std::fs::write(path, json!({"label": self.label, "rows": rows}).to_string())?;
        Ok(())
    }

    /// This run's figures beside those saved in `path`, row by row.
    fn print_beside(&self, path: &std::path::Path) -> anyhow::Result<()> {
        let other: Value = serde_json::from_slice(&std::fs::read(path)?)?;
        let label = other["label"].as_str().unwrap_or("earlier run");
        let verdict =
            |row: &Figure, value: f64| row.target.map_or("", |target| if target.met(value) { "met" } else { "MISSED" });
        println!("==> side by side");
        println!("| {:<86} | {:>10} | {:>22} | {:>22} |", "figure", "target", label, self.label);
        println!("|{:-<88}|{:-<12}|{:-<24}|{:-<24}|", "", "", "", "");
        for row in &self.rows {
            let theirs = other["rows"].as_array().into_iter().flatten().find(|them| them["key"] == row.key.as_str());
            let theirs = theirs
                .and_then(|them| them["value"].as_f64())
                .map_or("—".to_owned(), |value| format!("{} {}", number(value, row.unit), verdict(row, value)));
            let mine = format!("{} {}", number(row.value, row.unit), verdict(row, row.value));
            let target = row.target.map_or(String::new(), |target| target.text(row.unit));
            println!("| {:<86} | {target:>10} | {theirs:>22} | {mine:>22} |", row.name);
        }
        Ok(())
    }
}
