//! Dates, times and durations on the wire (Python's `datetime` types), field by field as Python gives them.
//! Nothing here checks ranges: each side builds them with its own `datetime` constructors, which refuse
//! what is out of range (a session process is not trusted to send valid ones).

use super::wire::{Reader, WireError, WireResult, Writer};

/// A time of day, with its UTC offset in microseconds when it has one (a named zone arrives as its fixed
/// offset at that moment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub microsecond: i64,
    pub fold: bool,
    pub utc_offset_micros: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Date { year: i64, month: i64, day: i64 },
    Time(Clock),
    DateTime { year: i64, month: i64, day: i64, clock: Clock },
    TimeDelta { days: i64, seconds: i64, microseconds: i64 },
}

mod kind {
    pub const DATE: u8 = 0;
    pub const TIME: u8 = 1;
    pub const DATE_TIME: u8 = 2;
    pub const TIME_DELTA: u8 = 3;
}

impl Clock {
    fn write(&self, w: &mut Writer) {
        for part in [self.hour, self.minute, self.second, self.microsecond] {
            w.i64(part);
        }
        w.bool(self.fold);
        w.bool(self.utc_offset_micros.is_some());
        w.i64(self.utc_offset_micros.unwrap_or(0));
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let (hour, minute, second, microsecond) = (r.i64()?, r.i64()?, r.i64()?, r.i64()?);
        let fold = r.bool()?;
        let has_offset = r.bool()?;
        let offset = r.i64()?;
        Ok(Self { hour, minute, second, microsecond, fold, utc_offset_micros: has_offset.then_some(offset) })
    }
}

impl When {
    pub fn write(&self, w: &mut Writer) {
        match *self {
            When::Date { year, month, day } => {
                w.u8(kind::DATE);
                [year, month, day].into_iter().for_each(|part| w.i64(part));
            }
            When::Time(clock) => {
                w.u8(kind::TIME);
                clock.write(w);
            }
            When::DateTime { year, month, day, clock } => {
                w.u8(kind::DATE_TIME);
                [year, month, day].into_iter().for_each(|part| w.i64(part));
                clock.write(w);
            }
            When::TimeDelta { days, seconds, microseconds } => {
                w.u8(kind::TIME_DELTA);
                [days, seconds, microseconds].into_iter().for_each(|part| w.i64(part));
            }
        }
    }

    pub fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(match r.u8()? {
            kind::DATE => When::Date { year: r.i64()?, month: r.i64()?, day: r.i64()? },
            kind::TIME => When::Time(Clock::read(r)?),
            kind::DATE_TIME => {
                let (year, month, day) = (r.i64()?, r.i64()?, r.i64()?);
                When::DateTime { year, month, day, clock: Clock::read(r)? }
            }
            kind::TIME_DELTA => When::TimeDelta { days: r.i64()?, seconds: r.i64()?, microseconds: r.i64()? },
            other => return Err(WireError::BadTag(other)),
        })
    }
}
