//! The storm as the servers saw it: their own latency histograms
//! (`GET /metrics` of every process, before and after the storm), so that a
//! slow answer can be told apart from a slow client. A p99 read off a
//! histogram is its bucket's upper bound (buckets double: 0.1 ms … 3.3 s).

use crate::figures::Figures;

/// One histogram's cumulative bucket counts, summed over every matching
/// series of every process: (upper bound in seconds, count ≤ it).
#[derive(Debug, Default, Clone)]
pub struct Buckets(Vec<(f64, f64)>);

/// A histogram to read: its figure's key, its row's name, the metric, the labels a series must carry.
struct Watched(&'static str, &'static str, &'static str, &'static [(&'static str, &'static str)]);

/// What is read: a name for the row, the metric, and the labels a series
/// must carry (others, such as the status, are summed over).
const WATCHED: [Watched; 5] = [
    Watched(
        "serverHold",
        "hold (best 2), in the server",
        "seathold_http_request_duration_seconds",
        &[("method", "POST"), ("route", "/api/shows/{showId}/holds")],
    ),
    Watched(
        "serverJoin",
        "queue join, in the server",
        "seathold_http_request_duration_seconds",
        &[("method", "POST"), ("route", "/api/shows/{showId}/queue")],
    ),
    Watched(
        "serverTime",
        "GET /api/time, in the server",
        "seathold_http_request_duration_seconds",
        &[("method", "GET"), ("route", "/api/time")],
    ),
    Watched("groupCommit", "one group commit of the show writer", "seathold_commit_duration_seconds", &[]),
    Watched("queueBatch", "one batch of the queue writer", "seathold_queue_batch_duration_seconds", &[]),
];

/// Every watched histogram of every process, read now.
pub async fn read(bases: &[String]) -> anyhow::Result<Vec<Buckets>> {
    let mut texts = Vec::with_capacity(bases.len());
    for base in bases {
        texts.push(reqwest::get(format!("{base}/metrics")).await?.error_for_status()?.text().await?);
    }
    Ok(WATCHED.iter().map(|Watched(_, _, metric, labels)| buckets(&texts, metric, labels)).collect())
}

/// Adds a p99 (and the count) of what happened between `before` and `after`.
pub fn add(figures: &mut Figures, before: &[Buckets], after: &[Buckets]) {
    for (Watched(key, name, _, _), (before, after)) in WATCHED.iter().zip(before.iter().zip(after)) {
        let since = after.since(before);
        let count = since.0.last().map_or(0.0, |(_, count)| *count);
        if count == 0.0 {
            continue;
        }
        if let Some(p99) = since.quantile(0.99) {
            figures.add(
                &format!("{key}P99Ms"),
                &format!("{name} p99 (≤ its bucket, {count} seen)"),
                p99 * 1000.0,
                "ms",
                None,
            );
        }
    }
}

fn buckets(texts: &[String], metric: &str, labels: &[(&str, &str)]) -> Buckets {
    let prefix = format!("{metric}_bucket{{");
    let mut sums: Vec<(f64, f64)> = Vec::new();
    for line in texts.iter().flat_map(|text| text.lines()) {
        let Some(rest) = line.strip_prefix(&prefix) else { continue };
        let Some((inside, value)) = rest.split_once("} ") else { continue };
        let pairs: Vec<(&str, &str)> = inside
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(name, value)| (name, value.trim_matches('"')))
            .collect();
        if !labels.iter().all(|wanted| pairs.contains(wanted)) {
            continue;
        }
        let Some(le) = pairs.iter().find(|(name, _)| *name == "le").map(|(_, le)| parse_bound(le)) else { continue };
        let Ok(value) = value.trim().parse::<f64>() else { continue };
        match sums.iter_mut().find(|(bound, _)| *bound == le) {
            Some((_, sum)) => *sum += value,
            None => sums.push((le, value)),
        }
    }
    sums.sort_by(|a, b| a.0.total_cmp(&b.0));
    Buckets(sums)
}

fn parse_bound(le: &str) -> f64 {
    if le == "+Inf" { f64::INFINITY } else { le.parse().unwrap_or(f64::INFINITY) }
}

impl Buckets {
    fn since(&self, before: &Self) -> Self {
        let earlier = |bound: f64| before.0.iter().find(|(b, _)| *b == bound).map_or(0.0, |(_, count)| *count);
        Self(self.0.iter().map(|(bound, count)| (*bound, count - earlier(*bound))).collect())
    }

    /// The upper bound of the bucket holding the `q` quantile.
    fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.0.last()?.1;
        self.0.iter().find(|(_, count)| *count >= total * q).map(|(bound, _)| *bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
seathold_http_request_duration_seconds_bucket{le=\"0.001\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"201\"} 90
seathold_http_request_duration_seconds_bucket{le=\"0.002\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"201\"} 99
seathold_http_request_duration_seconds_bucket{le=\"+Inf\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"201\"} 100
seathold_http_request_duration_seconds_bucket{le=\"0.001\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"409\"} 0
seathold_http_request_duration_seconds_bucket{le=\"0.002\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"409\"} 0
seathold_http_request_duration_seconds_bucket{le=\"+Inf\",method=\"POST\",route=\"/api/shows/{showId}/holds\",status=\"409\"} 100
seathold_http_request_duration_seconds_bucket{le=\"0.001\",method=\"GET\",route=\"/api/time\",status=\"200\"} 5
";

    #[test]
    fn statuses_are_summed_and_other_routes_left_out() {
        let read = buckets(&[TEXT.to_owned()], "seathold_http_request_duration_seconds", WATCHED[0].3);
        assert_eq!(read.0, vec![(0.001, 90.0), (0.002, 99.0), (f64::INFINITY, 200.0)]);
        assert_eq!(read.quantile(0.45), Some(0.001));
        assert_eq!(read.quantile(0.99), Some(f64::INFINITY));
    }

    #[test]
    fn a_quantile_counts_only_what_came_after_the_first_reading() {
        let before = Buckets(vec![(0.001, 90.0), (0.002, 90.0), (f64::INFINITY, 100.0)]);
        let after = Buckets(vec![(0.001, 90.0), (0.002, 189.0), (f64::INFINITY, 200.0)]);
        let since = after.since(&before);
        assert_eq!(since.0, vec![(0.001, 0.0), (0.002, 99.0), (f64::INFINITY, 100.0)]);
        assert_eq!(since.quantile(0.99), Some(0.002));
    }
}
