//! Dates, times and durations on the wire (Python's `datetime` types), field by field as Python gives them.
//! Nothing here checks ranges: each side builds them with its own `datetime` constructors, which refuse
//! what is out of range (a session process is not trusted to send valid ones).

use serde::{Deserialize, Serialize};

/// A time of day, with its UTC offset in microseconds when it has one (a named zone arrives as its fixed
/// offset at that moment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub microsecond: i64,
    pub fold: bool,
    pub utc_offset_micros: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum When {
    Date { year: i64, month: i64, day: i64 },
    Time(Clock),
    DateTime { year: i64, month: i64, day: i64, clock: Clock },
    TimeDelta { days: i64, seconds: i64, microseconds: i64 },
}
