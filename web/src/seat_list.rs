//! The seats as a list for choosing without the map (seats.io's
//! "stepThrough"): sections, their rows, each row's seats in map order.
//! A seat's section is its price category (in a venue drawn on the canvas,
//! the venue section it stands in: `MapModel::new`); its row, what its
//! label says before the last comma ("Row B" of "Row B, seat 7").

/// One row of a section: its name and the seats in it (model indices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRow {
    pub name: String,
    pub seats: Vec<usize>,
}

/// One section and its rows, in the order the seats come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSection {
    pub name: String,
    pub rows: Vec<ListRow>,
}

/// Splits a label into its row and its seat: "Row B, seat 7" → ("Row B", "seat 7").
/// A label without a comma is a row of its own.
pub fn row_and_seat(label: &str) -> (&str, &str) {
    label.rsplit_once(", ").unwrap_or((label, label))
}

/// Groups seats `(label, section)` by section, then by row, keeping the
/// order they first appear in. Seats without a section go to "Seats".
pub fn sections<'a>(seats: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Vec<ListSection> {
    let mut sections: Vec<ListSection> = Vec::new();
    // Each section's rows by name, sorted (a sorted vector: less wasm than a map).
    let mut row_index: Vec<(usize, &str, usize)> = Vec::new();
    let mut last = 0;
    for (index, (label, category)) in seats.into_iter().enumerate() {
        let section_name = category.unwrap_or("Seats");
        // Seats of a section come together too: the last one first.
        let at = match sections.get(last).filter(|section| section.name == section_name) {
            Some(_) => last,
            None => match sections.iter().position(|section| section.name == section_name) {
                Some(at) => at,
                None => {
                    sections.push(ListSection { name: section_name.to_owned(), rows: Vec::new() });
                    sections.len() - 1
                }
            },
        };
        last = at;
        let rows = &mut sections[at].rows;
        let (row_name, _) = row_and_seat(label);
        // Seats of a row come together, so the last row is almost always the
        // one; any other is found by name (a scan was quadratic: a stadium's
        // section has 1,400 rows).
        match rows.last_mut().filter(|row| row.name == row_name) {
            Some(row) => row.seats.push(index),
            None => match row_index.binary_search_by(|&(s, name, _)| (s, name).cmp(&(at, row_name))) {
                Ok(found) => rows[row_index[found].2].seats.push(index),
                Err(slot) => {
                    row_index.insert(slot, (at, row_name, rows.len()));
                    rows.push(ListRow { name: row_name.to_owned(), seats: vec![index] });
                }
            },
        }
    }
    sections
}
