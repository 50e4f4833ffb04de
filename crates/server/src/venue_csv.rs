//! A venue from a spreadsheet (API.md "CSV import"): one seat per line,
//! header `section,row,number,x,y,category` plus optional `id` and `label`.
//! Errors name the line and the column, as a spreadsheet shows them.

use seat_state::wire::{SeatDefinition, ShowInput, VenueSeat};
use seat_state::{InvalidShow, PlaceId};

/// The show's other fields: query parameters of `POST /api/admin/shows`
/// with a CSV body, and flags of `seathold show create VENUE.csv`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, clap::Args, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ShowFields {
    /// The show's id (required with a CSV venue).
    #[arg(long)]
    pub id: Option<String>,
    /// The show's name (required with a CSV venue).
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub hold_seconds: Option<i64>,
    #[arg(long)]
    pub extension_seconds: Option<i64>,
    #[arg(long)]
    pub max_extensions: Option<i64>,
    #[arg(long)]
    pub max_seats_per_hold: Option<i64>,
    #[arg(long)]
    pub max_active_holds_per_holder: Option<i64>,
    /// `reject` or `honorIfFree`.
    #[arg(long)]
    pub late_policy: Option<String>,
}

impl ShowFields {
    /// The show definition with these fields and the venue's seats.
    pub fn with_seats(self, seats: Vec<VenueSeat>) -> ShowInput {
        ShowInput {
            id: self.id,
            name: self.name,
            hold_seconds: self.hold_seconds,
            extension_seconds: self.extension_seconds,
            max_extensions: self.max_extensions,
            max_seats_per_hold: self.max_seats_per_hold,
            max_active_holds_per_holder: self.max_active_holds_per_holder,
            late_policy: self.late_policy,
            seats: Some(seats),
            ..ShowInput::default()
        }
    }
}

const REQUIRED: [&str; 6] = ["section", "row", "number", "x", "y", "category"];
const OPTIONAL: [&str; 2] = ["id", "label"];

/// Where each known column is in the header.
struct Columns {
    required: [usize; 6],
    id: Option<usize>,
    label: Option<usize>,
}

fn at(line: u64, column: usize, name: &str, problem: impl std::fmt::Display) -> InvalidShow {
    InvalidShow(format!("line {line}, column {} ({name}): {problem}", column + 1))
}

fn columns(header: &csv::StringRecord) -> Result<Columns, InvalidShow> {
    let mut found: Vec<Option<usize>> = vec![None; REQUIRED.len() + OPTIONAL.len()];
    for (column, name) in header.iter().enumerate() {
        let name = name.trim();
        let known = REQUIRED.iter().chain(&OPTIONAL).position(|known| known.eq_ignore_ascii_case(name));
        let Some(known) = known else {
            return Err(at(
                1,
                column,
                name,
                "unknown column; the header is section,row,number,x,y,category (id, label optional)",
            ));
        };
        if found[known].replace(column).is_some() {
            return Err(at(1, column, name, "this column appears twice"));
        }
    }
    let mut required = [0; 6];
    for (slot, name) in REQUIRED.iter().enumerate() {
        required[slot] = found[slot].ok_or_else(|| {
            InvalidShow(format!(
                "line 1: the header has no column {name:?} (section,row,number,x,y,category are required)"
            ))
        })?;
    }
    Ok(Columns { required, id: found[6], label: found[7] })
}

/// The venue's seats, in file order.
pub fn seats(bytes: &[u8]) -> Result<Vec<VenueSeat>, InvalidShow> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(bytes);
    let header = reader.headers().map_err(|error| csv_error(&error))?.clone();
    let columns = columns(&header)?;
    let mut seats = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(|error| csv_error(&error))? {
        let line = record.position().map_or(0, csv::Position::line);
        seats.push(seat(&record, line, &columns)?);
    }
    if seats.is_empty() {
        return Err(InvalidShow("line 2: the venue has no seats".into()));
    }
    Ok(seats)
}

fn seat(record: &csv::StringRecord, line: u64, columns: &Columns) -> Result<VenueSeat, InvalidShow> {
    let [section, row, number, x, y, category] = columns.required;
    let field = |column: usize| record.get(column).unwrap_or_default().trim();
    let text = |column: usize, name: &str| {
        let value = field(column);
        if value.is_empty() { Err(at(line, column, name, "must not be empty")) } else { Ok(value.to_owned()) }
    };
    let coordinate = |column: usize, name: &str| {
        field(column)
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite())
            .ok_or_else(|| at(line, column, name, format!("{:?} is not a number", field(column))))
    };
    let (section_name, row_name) = (text(section, "section")?, text(row, "row")?);
    let seat_number = field(number)
        .parse::<i64>()
        .map_err(|_| at(line, number, "number", format!("{:?} is not a whole number", field(number))))?;
    let id = match columns.id.map(field).filter(|id| !id.is_empty()) {
        Some(id) => PlaceId::parse(id).map_err(|error| at(line, columns.id.unwrap_or_default(), "id", error))?,
        None => PlaceId::parse(&format!("{section_name}-{row_name}-{seat_number}")).map_err(|error| {
            InvalidShow(format!(
                "line {line}: the default id (section-row-number) is not usable ({error}); add an id column"
            ))
        })?,
    };
    let label = columns.label.map(field).filter(|label| !label.is_empty()).map_or_else(
        || seat_state::wire::default_label("", Some(&section_name), Some(&row_name), Some(seat_number)),
        ToOwned::to_owned,
    );
    Ok(VenueSeat {
        seat: SeatDefinition {
            id: id.to_string(),
            x: coordinate(x, "x")?,
            y: coordinate(y, "y")?,
            label: Some(label),
            category: Some(field(category)).filter(|c| !c.is_empty()).map(ToOwned::to_owned),
        },
        section: Some(section_name),
        row: Some(row_name),
        number: Some(seat_number),
        access: None,
        companion_of: None,
    })
}

/// A malformed file (a line with another number of fields, bad UTF-8).
fn csv_error(error: &csv::Error) -> InvalidShow {
    let line = error.position().map_or(0, csv::Position::line);
    match error.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            InvalidShow(format!("line {line}: {len} fields where the header has {expected_len}"))
        }
        csv::ErrorKind::Utf8 { err, .. } => {
            InvalidShow(format!("line {line}, column {}: not UTF-8 text", err.field() + 1))
        }
        _ => InvalidShow(format!("line {line}: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        seats(text.as_bytes()).map(|_| ()).unwrap_err().0
    }

    #[test]
    fn a_venue_reads_with_default_ids_and_labels_or_given_ones() {
        let venue = "section,row,number,x,y,category,label\nStalls,A,1,10,0,a,\nStalls,A,2,20,0,,Aisle seat\n";
        let seats = seats(venue.as_bytes()).unwrap_or_default();
        assert_eq!(seats[0].seat.id, "Stalls-A-1");
        assert_eq!(seats[0].seat.label.as_deref(), Some("Section Stalls, row A, seat 1"));
        assert_eq!(seats[0].seat.category.as_deref(), Some("a"));
        assert_eq!((seats[1].seat.label.as_deref(), seats[1].seat.category.as_deref()), (Some("Aisle seat"), None));
        assert_eq!((seats[1].row.as_deref(), seats[1].number), (Some("A"), Some(2)));
    }

    #[test]
    fn columns_may_come_in_any_order_with_an_id() {
        let seats = seats(b"id,x,y,section,row,number,category\nA1,1.5,2,S,A,1,a\n").unwrap_or_default();
        assert_eq!((seats[0].seat.id.as_str(), seats[0].seat.x), ("A1", 1.5));
    }

    #[test]
    fn errors_name_the_line_and_the_column() {
        let header = "section,row,number,x,y,category\n";
        assert_eq!(
            refusal(&format!("{header}S,A,1,0,0,a\nS,A,2,left,0,a\n")),
            "line 3, column 4 (x): \"left\" is not a number"
        );
        assert_eq!(
            refusal(&format!("{header}S,A,one,0,0,a\n")),
            "line 2, column 3 (number): \"one\" is not a whole number"
        );
        assert_eq!(refusal(&format!("{header}S,,1,0,0,a\n")), "line 2, column 2 (row): must not be empty");
        assert_eq!(refusal(&format!("{header}S,A,1,0\n")), "line 2: 4 fields where the header has 6");
        assert!(refusal(&format!("{header}Upper Circle,A,1,0,0,a\n")).starts_with("line 2: the default id"));
        assert!(
            refusal("id,section,row,number,x,y,category\nA 1,S,A,1,0,0,a\n").starts_with("line 2, column 1 (id): ")
        );
    }

    #[test]
    fn the_header_must_have_the_known_columns_once() {
        assert_eq!(
            refusal("section,row,number,x,category\n"),
            "line 1: the header has no column \"y\" (section,row,number,x,y,category are required)"
        );
        assert!(
            refusal("section,row,number,x,y,category,price\n").starts_with("line 1, column 7 (price): unknown column")
        );
        assert_eq!(refusal("section,row,number,x,y,category,x\n"), "line 1, column 7 (x): this column appears twice");
        assert_eq!(refusal("section,row,number,x,y,category\n"), "line 2: the venue has no seats");
    }
}
