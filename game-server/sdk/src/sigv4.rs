//! SigV4 query signing as the official Go SDK signs the upgrade (Go
//! `server/internal/security/sigv4_utility.go`, `server/server_state.go`
//! `getSigV4QueryParameters`): not the HTTP canonical request of the AWS documentation,
//! but the sorted, `url.QueryEscape`d `ComputeId=…&FleetId=…&pID=…` alone, hashed into
//! `AWS4-HMAC-SHA256\n<datetime>\n<date>/<region>/gamelift/aws4_request\n<hash>` and
//! signed with the usual derived key (aws-sigv4's `generate_signing_key`; the key
//! derivation is <https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html>).

use std::time::{SystemTime, UNIX_EPOCH};

use gamelift_server_protocol::ConnectQuery;
use sha2::{Digest, Sha256};

const ALGORITHM: &str = "AWS4-HMAC-SHA256";
const SERVICE: &str = "gamelift";
/// `Authorization`'s value for a signed query.
const AUTHORIZATION: &str = "SigV4";

/// The keys that sign the query.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    // Secrets stay out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("region", &self.region)
            .field("access_key", &self.access_key)
            .finish_non_exhaustive()
    }
}

/// Adds `Authorization=SigV4` and the `X-Amz-*` keys to `query`, signed at `now`.
pub(crate) fn sign(query: &mut ConnectQuery, credentials: &Credentials, now: SystemTime) {
    let (date, date_time) = amz_dates(now);
    let mut signed = [
        ("ComputeId", query.compute_id.clone().unwrap_or_default()),
        ("FleetId", query.fleet_id.clone()),
        ("pID", query.process_id.clone()),
    ];
    signed.sort_by(|a, b| a.0.cmp(b.0));
    let canonical = signed
        .iter()
        .map(|(key, value)| format!("{}={}", query_escape(key), query_escape(value)))
        .collect::<Vec<_>>()
        .join("&");
    let scope = format!("{date}/{}/{SERVICE}/aws4_request", credentials.region);
    let string_to_sign = format!(
        "{ALGORITHM}\n{date_time}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    let key = aws_sigv4::sign::v4::generate_signing_key(
        &credentials.secret_key,
        now,
        &credentials.region,
        SERVICE,
    );
    let signature = aws_sigv4::sign::v4::calculate_signature(key, string_to_sign.as_bytes());
    query.authorization = Some(AUTHORIZATION.to_owned());
    query.amz_algorithm = Some(ALGORITHM.to_owned());
    query.amz_credential = Some(format!("{}/{scope}", credentials.access_key));
    query.amz_date = Some(date_time);
    query.amz_signature = Some(signature);
    query.amz_security_token = credentials.session_token.clone();
}

/// Go's `url.QueryEscape`: unreserved characters kept, space as `+`, the rest `%XX`.
fn query_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte))
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// `yyyymmdd` and `yyyymmddTHHMMSSZ` in UTC.
fn amz_dates(now: SystemTime) -> (String, String) {
    let seconds = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let days = i64::try_from(seconds / 86_400).unwrap_or_default();
    let (year, month, day) = civil_from_days(days);
    let of_day = seconds % 86_400;
    let date = format!("{year:04}{month:02}{day:02}");
    let date_time = format!(
        "{date}T{:02}{:02}{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    );
    (date, date_time)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn query() -> ConnectQuery {
        ConnectQuery {
            process_id: "proc 1/a~*".into(),
            compute_id: Some("host-1".into()),
            fleet_id: "fleet-1".into(),
            ..ConnectQuery::default()
        }
    }

    #[test]
    fn given_fixed_keys_and_time_when_signed_then_the_signature_matches_an_independent_computation()
    {
        // Computed apart from this code, with Python's hmac and hashlib:
        //   canon = "ComputeId=host-1&FleetId=fleet-1&pID=proc+1%2Fa~%2A"  (quote_plus, safe="~")
        //   sts = "AWS4-HMAC-SHA256\n20260102T030405Z\n20260102/us-west-2/gamelift/aws4_request\n"
        //         + sha256(canon).hexdigest()
        //   k = hmac("AWS4secret/key", "20260102") → "us-west-2" → "gamelift" → "aws4_request"
        //   hmac(k, sts).hexdigest()
        let now = UNIX_EPOCH + Duration::from_secs(1_767_323_045); // 2026-01-02T03:04:05Z
        let credentials = Credentials {
            region: "us-west-2".into(),
            access_key: "AKIDEXAMPLE".into(),
            secret_key: "secret/key".into(),
            session_token: Some("session".into()),
        };
        let mut query = query();
        sign(&mut query, &credentials, now);
        assert_eq!(
            query.amz_signature.as_deref(),
            Some("2e635443c521bba7af9ffacaf7d727d653134cbbddb73d04c7a1c66c85b1b4db")
        );
        assert_eq!(query.authorization.as_deref(), Some("SigV4"));
        assert_eq!(query.amz_algorithm.as_deref(), Some("AWS4-HMAC-SHA256"));
        assert_eq!(
            query.amz_credential.as_deref(),
            Some("AKIDEXAMPLE/20260102/us-west-2/gamelift/aws4_request")
        );
        assert_eq!(query.amz_date.as_deref(), Some("20260102T030405Z"));
        assert_eq!(query.amz_security_token.as_deref(), Some("session"));
        assert!(query.is_sigv4());
    }

    #[test]
    fn given_dates_around_leap_days_when_formatted_then_they_are_the_utc_calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let (date, time) = amz_dates(UNIX_EPOCH + Duration::from_secs(951_868_799));
        assert_eq!(
            (date.as_str(), time.as_str()),
            ("20000229", "20000229T235959Z")
        );
    }
}
