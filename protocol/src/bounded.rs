//! What the hand-written `Deserialize` impls share: a JSON object or array read with a
//! bound on how many entries it holds, refused as soon as the size the deserializer
//! announces passes it (a `serde_json::Value` knows it before any entry is read), else
//! once the entries read pass it; and a JSON number (an integer too) read as `f64` and
//! checked.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{Error, MapAccess, SeqAccess, Visitor};

/// How many entries a JSON object or array may hold, and its refusal past that.
pub(crate) struct Bound {
    /// What the object or array is, as a type error says it.
    pub expecting: &'static str,
    pub max: usize,
    /// The refusal of `count` entries.
    pub too_many: fn(usize) -> String,
}

impl Bound {
    /// The entries `next` reads, refused past `max` as soon as `hint` says so, else once
    /// `len` of those read does.
    fn collect<C: Default + Extend<T>, T, E: Error>(
        &self,
        hint: Option<usize>,
        len: fn(&C) -> usize,
        mut next: impl FnMut() -> Result<Option<T>, E>,
    ) -> Result<C, E> {
        let refuse = |count| E::custom((self.too_many)(count));
        if let Some(count) = hint.filter(|count| *count > self.max) {
            return Err(refuse(count));
        }
        let mut entries = C::default();
        while let Some(entry) = next()? {
            entries.extend([entry]);
        }
        match len(&entries) {
            count if count > self.max => Err(refuse(count)),
            _ => Ok(entries),
        }
    }
}

/// A JSON object within its [`Bound`], each key checked before its value is read (a key
/// given twice keeps its last value, and counts once).
pub(crate) struct BoundedMap<K, V> {
    pub bound: Bound,
    /// The key as read, or why it is refused.
    pub key: fn(String) -> Result<K, String>,
    pub value: PhantomData<V>,
}

impl<'de, K: Ord, V: Deserialize<'de>> Visitor<'de> for BoundedMap<K, V> {
    type Value = BTreeMap<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.bound.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let hint = map.size_hint();
        self.bound.collect(hint, BTreeMap::len, || {
            let Some(key) = map.next_key::<String>()? else {
                return Ok(None);
            };
            let key = (self.key)(key).map_err(A::Error::custom)?;
            Ok(Some((key, map.next_value()?)))
        })
    }
}

/// A JSON array within its [`Bound`], every item counted (duplicates too).
pub(crate) struct BoundedSeq<T> {
    pub bound: Bound,
    pub item: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for BoundedSeq<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.bound.expecting)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let hint = seq.size_hint();
        self.bound.collect(hint, Vec::len, || seq.next_element())
    }
}

/// A JSON number, an integer too, as `f64`, then checked.
pub(crate) struct CheckedNumber<T> {
    /// What the number is, as a type error says it.
    pub expecting: &'static str,
    /// The value, or why the number is refused.
    pub check: fn(f64) -> Result<T, String>,
}

impl<T> Visitor<'_> for CheckedNumber<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_f64<E: Error>(self, number: f64) -> Result<T, E> {
        (self.check)(number).map_err(E::custom)
    }

    fn visit_i64<E: Error>(self, number: i64) -> Result<T, E> {
        self.visit_f64(number as f64)
    }

    fn visit_u64<E: Error>(self, number: u64) -> Result<T, E> {
        self.visit_f64(number as f64)
    }
}
