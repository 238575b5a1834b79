//! Being built: see the issue.
