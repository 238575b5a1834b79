//! The pass/fail table: a row per check, printed as soon as it is known (so a check that
//! hangs is visibly the next one), and a closing line. The checks it expects are given
//! to it (the journeys' list), so a check that never ran still gets its row.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
}

pub struct Report {
    /// Every check, in order: those without a row at the end did not run.
    expected: &'static [&'static str],
    rows: Vec<(&'static str, Outcome, String)>,
}

impl Report {
    pub fn new(expected: &'static [&'static str]) -> Self {
        println!("{:<7} {:<20} detail", "result", "check");
        Self {
            expected,
            rows: Vec::new(),
        }
    }

    fn record(&mut self, check: &'static str, outcome: Outcome, detail: String) {
        let label = match outcome {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Skip => "SKIP",
        };
        println!("{label:<7} {check:<20} {detail}");
        self.rows.push((check, outcome, detail));
    }

    pub fn pass(&mut self, check: &'static str, detail: String) {
        self.record(check, Outcome::Pass, detail);
    }

    pub fn fail(&mut self, check: &'static str, detail: String) {
        self.record(check, Outcome::Fail, detail);
    }

    pub fn skip(&mut self, check: &'static str, detail: String) {
        self.record(check, Outcome::Skip, detail);
    }

    /// Records a step's result: its value on success, `None` (and a FAIL row) otherwise.
    pub fn check<T>(
        &mut self,
        check: &'static str,
        result: Result<(T, String), String>,
    ) -> Option<T> {
        match result {
            Ok((value, detail)) => {
                self.pass(check, detail);
                Some(value)
            }
            Err(error) => {
                self.fail(check, error);
                None
            }
        }
    }

    /// Marks the checks that did not run, prints the closing line; true if none failed.
    pub fn finish(mut self) -> bool {
        for &check in self.expected {
            if !self.rows.iter().any(|(name, ..)| *name == check) {
                self.record(
                    check,
                    Outcome::Fail,
                    "not run: an earlier check failed".to_owned(),
                );
            }
        }
        let count = |outcome| self.rows.iter().filter(|(_, o, _)| *o == outcome).count();
        let (failed, skipped) = (count(Outcome::Fail), count(Outcome::Skip));
        let skipped = if skipped > 0 {
            format!(" ({skipped} skipped)")
        } else {
            String::new()
        };
        if failed == 0 {
            println!("\nresult: every check passed{skipped}");
        } else {
            println!(
                "\nresult: {failed} of {} checks FAILED{skipped}",
                self.rows.len()
            );
        }
        failed == 0
    }
}
