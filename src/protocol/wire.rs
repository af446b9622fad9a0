//! The binary encoding of messages: little-endian integers, length-prefixed byte strings. Reading never
//! trusts a length: it is checked against what is left of the frame before anything is allocated.

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the message ends early")]
    Truncated,
    #[error("unknown tag {0}")]
    BadTag(u8),
    #[error("a string is not valid UTF-8")]
    BadUtf8,
    #[error("values are nested too deeply")]
    TooDeep,
    #[error("{0} bytes are left over after the message")]
    Trailing(usize),
}

pub type WireResult<T> = Result<T, WireError>;

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    pub fn bool(&mut self, value: bool) {
        self.buf.push(value as u8);
    }

    pub fn u32(&mut self, value: u32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn u64(&mut self, value: u64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn i64(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn f64(&mut self, value: f64) {
        self.buf.extend_from_slice(&value.to_bits().to_le_bytes());
    }

    pub fn len(&mut self, len: usize) {
        self.u64(len as u64);
    }

    pub fn bytes(&mut self, value: &[u8]) {
        self.len(value.len());
        self.buf.extend_from_slice(value);
    }

    pub fn str(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }

    pub fn opt_str(&mut self, value: Option<&str>) {
        self.bool(value.is_some());
        if let Some(value) = value {
            self.str(value);
        }
    }

    pub fn opt_u64(&mut self, value: Option<u64>) {
        self.bool(value.is_some());
        if let Some(value) = value {
            self.u64(value);
        }
    }

    pub fn opt_f64(&mut self, value: Option<f64>) {
        self.bool(value.is_some());
        if let Some(value) = value {
            self.f64(value);
        }
    }

    pub fn strs(&mut self, values: &[String]) {
        self.len(values.len());
        for value in values {
            self.str(value);
        }
    }
}

pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    pub fn finish(&self) -> WireResult<()> {
        match self.buf.len() - self.pos {
            0 => Ok(()),
            left => Err(WireError::Trailing(left)),
        }
    }

    fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|end| *end <= self.buf.len()).ok_or(WireError::Truncated)?;
        let slice = &self.buf[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    pub fn u8(&mut self) -> WireResult<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn bool(&mut self) -> WireResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(WireError::BadTag(other)),
        }
    }

    pub fn u32(&mut self) -> WireResult<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> WireResult<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn i64(&mut self) -> WireResult<i64> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn f64(&mut self) -> WireResult<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of items that follow, each at least `min_item_bytes` long: never more than the frame holds.
    pub fn count(&mut self, min_item_bytes: usize) -> WireResult<usize> {
        let n = self.u64()?;
        let left = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(min_item_bytes.max(1) as u64) > left {
            return Err(WireError::Truncated);
        }
        Ok(n as usize)
    }

    pub fn bytes(&mut self) -> WireResult<&'a [u8]> {
        let n = self.count(1)?;
        self.take(n)
    }

    pub fn str(&mut self) -> WireResult<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| WireError::BadUtf8)
    }

    pub fn string(&mut self) -> WireResult<String> {
        self.str().map(str::to_owned)
    }

    pub fn opt_string(&mut self) -> WireResult<Option<String>> {
        Ok(if self.bool()? { Some(self.string()?) } else { None })
    }

    pub fn opt_u64(&mut self) -> WireResult<Option<u64>> {
        Ok(if self.bool()? { Some(self.u64()?) } else { None })
    }

    pub fn opt_f64(&mut self) -> WireResult<Option<f64>> {
        Ok(if self.bool()? { Some(self.f64()?) } else { None })
    }

    pub fn strings(&mut self) -> WireResult<Vec<String>> {
        let n = self.count(8)?;
        (0..n).map(|_| self.string()).collect()
    }
}
