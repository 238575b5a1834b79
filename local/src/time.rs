//! Timestamps in the formats API Gateway uses, from epoch milliseconds.

use shared::ports::{Clock, SystemClock};

/// Now, in epoch milliseconds.
pub fn now_millis() -> i64 {
    SystemClock.now_millis()
}

/// `2020-04-09T18:06:15.966Z` (ISO 8601, as the management API's GetConnection returns).
pub fn iso8601(millis: i64) -> String {
    let (date, secs_of_day, ms) = split(millis);
    let (h, m, s) = (secs_of_day / 3600, secs_of_day / 60 % 60, secs_of_day % 60);
    format!(
        "{:04}-{:02}-{:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z",
        date.0, date.1, date.2
    )
}

/// `09/Apr/2020:18:06:17 +0000` (the `requestTime` of API Gateway events).
pub fn request_time(millis: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let ((y, mo, d), secs_of_day, _) = split(millis);
    let (h, m, s) = (secs_of_day / 3600, secs_of_day / 60 % 60, secs_of_day % 60);
    let month = MONTHS[(mo as usize).saturating_sub(1).min(11)];
    format!("{d:02}/{month}/{y:04}:{h:02}:{m:02}:{s:02} +0000")
}

/// ((year, month, day), seconds of the day, milliseconds).
fn split(millis: i64) -> ((i64, u32, u32), i64, i64) {
    let secs = millis.div_euclid(1000);
    let ms = millis.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let secs_of_day = secs.rem_euclid(86_400);
    (civil_from_days(days), secs_of_day, ms)
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 → (year, month, day).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_match_api_gateway() {
        // 2020-04-09T18:06:15.966Z
        assert_eq!(iso8601(1_586_455_575_966), "2020-04-09T18:06:15.966Z");
        assert_eq!(
            request_time(1_586_455_577_006),
            "09/Apr/2020:18:06:17 +0000"
        );
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // A leap day.
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(
            request_time(1_735_689_599_000),
            "31/Dec/2024:23:59:59 +0000"
        );
    }
}
