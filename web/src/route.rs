//! Which page a path shows. Three pages do not justify a router crate's weight.

/// A page of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/`: every show.
    ShowList,
    /// `/shows/<id>`: one show's seat map.
    Show(String),
    /// `/admin`: the operator's page.
    Admin,
    /// Anything else.
    NotFound,
}

impl Route {
    /// Parses a location's path.
    pub fn from_path(path: &str) -> Self {
        let trimmed = path.trim_end_matches('/');
        if trimmed.is_empty() {
            return Self::ShowList;
        }
        if trimmed == "/admin" {
            return Self::Admin;
        }
        match trimmed.strip_prefix("/shows/") {
            Some(id) if !id.is_empty() && !id.contains('/') => Self::Show(id.to_owned()),
            _ => Self::NotFound,
        }
    }

    /// The path that opens this page.
    pub fn show_path(show_id: &str) -> String {
        format!("/shows/{show_id}")
    }
}
