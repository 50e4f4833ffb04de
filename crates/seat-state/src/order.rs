//! The crate's one sort. Every sort of indices goes through one comparator
//! type, so the browser's wasm carries a single copy of the sort.

use std::cmp::Ordering;

/// Sorts indices by `compare`; equal ones by index (so it is stable).
pub(crate) fn sort_by(indices: &mut [usize], compare: &dyn Fn(usize, usize) -> Ordering) {
    indices.sort_unstable_by(|&a, &b| compare(a, b).then(a.cmp(&b)));
}

/// Sorts indices by a key; equal keys by index.
pub(crate) fn sort_by_key(indices: &mut [usize], key: &dyn Fn(usize) -> f64) {
    sort_by(indices, &|a, b| key(a).total_cmp(&key(b)));
}

/// Sorts indices ascending (every key equal: by index alone).
pub(crate) fn sort_ascending(indices: &mut [usize]) {
    sort_by_key(indices, &|_| 0.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_sort_by_key_then_by_index() {
        let keys = [2.0, 1.0, 2.0, -0.5];
        let mut order = vec![0, 1, 2, 3];
        sort_by_key(&mut order, &|at| keys[at]);
        assert_eq!(order, [3, 1, 0, 2]);
        let mut indices = vec![5, 1, 4, 1];
        sort_ascending(&mut indices);
        assert_eq!(indices, [1, 1, 4, 5]);
    }
}
