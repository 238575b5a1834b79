//! `tools/data/prices-us-east-1.json`: one price per billed unit, each with its source
//! page, the date it was taken and how far it is confirmed.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The prices file.
#[derive(Clone, Debug, Deserialize)]
pub struct Prices {
    pub region: String,
    pub currency: String,
    pub terms: String,
    pub taken: String,
    pub prices: BTreeMap<String, Price>,
}

/// One price: `usd` for `per` units.
#[derive(Clone, Debug, Deserialize)]
pub struct Price {
    pub usd: f64,
    pub per: f64,
    pub unit: String,
    pub source: String,
    /// `aws-page`, `third-party` or `unconfirmed` (the file's `confirmation` says what
    /// each means).
    pub confirmed: String,
}

/// The prices this repository ships (`tools/data/prices-us-east-1.json`).
pub const BUNDLED: &str = include_str!("../../data/prices-us-east-1.json");

impl Prices {
    pub fn parse(text: &str) -> Result<Self, String> {
        let prices: Self =
            serde_json::from_str(text).map_err(|e| format!("the prices file: {e}"))?;
        for (key, price) in &prices.prices {
            if !(price.usd >= 0.0 && price.per > 0.0) {
                return Err(format!(
                    "the prices file: {key} must have usd >= 0 and per > 0"
                ));
            }
        }
        Ok(prices)
    }

    /// These prices with `key` at `usd` per million units instead (a knob of `cost`);
    /// an error names a key the file lacks or a price below zero.
    pub fn with_usd_per_million(mut self, key: &str, usd: f64) -> Result<Self, String> {
        if !(usd.is_finite() && usd >= 0.0) {
            return Err(format!(
                "the price of {key} must be 0 or more (it is {usd})"
            ));
        }
        let price = self
            .prices
            .get_mut(key)
            .ok_or_else(|| format!("the prices file has no price {key:?}"))?;
        price.usd = usd;
        price.per = 1e6;
        Ok(self)
    }

    /// The price of one unit of `key`; an error names a key the file lacks.
    pub fn unit_price(&self, key: &str) -> Result<f64, String> {
        self.prices
            .get(key)
            .map(|price| price.usd / price.per)
            .ok_or_else(|| format!("the prices file has no price {key:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_prices_parse_and_every_one_names_its_source() {
        let prices = Prices::parse(BUNDLED).unwrap();
        assert_eq!(prices.region, "us-east-1");
        for (key, price) in &prices.prices {
            assert!(price.source.starts_with("https://"), "{key}");
            assert!(
                ["aws-page", "third-party", "unconfirmed"].contains(&price.confirmed.as_str()),
                "{key}: {}",
                price.confirmed
            );
        }
        assert_eq!(
            prices.unit_price("apigateway_websocket_message").unwrap(),
            1e-6
        );
        assert!(prices.unit_price("nope").unwrap_err().contains("nope"));
    }

    #[test]
    fn get_connection_is_priced_at_zero_unless_a_price_is_given() {
        let prices = Prices::parse(BUNDLED).unwrap();
        assert_eq!(prices.unit_price("apigateway_get_connection").unwrap(), 0.0);
        assert_eq!(
            prices.prices["apigateway_get_connection"].confirmed,
            "unconfirmed"
        );
        let billed = prices
            .with_usd_per_million("apigateway_get_connection", 1.0)
            .unwrap();
        assert_eq!(
            billed.unit_price("apigateway_get_connection").unwrap(),
            1e-6
        );
        let prices = Prices::parse(BUNDLED).unwrap();
        assert!(
            prices
                .clone()
                .with_usd_per_million("apigateway_get_connection", -1.0)
                .unwrap_err()
                .contains("0 or more")
        );
        assert!(
            prices
                .with_usd_per_million("nope", 1.0)
                .unwrap_err()
                .contains("nope")
        );
    }

    #[test]
    fn a_negative_price_is_refused() {
        let text = r#"{"region":"r","currency":"USD","terms":"t","taken":"d","prices":
            {"x":{"usd":-1,"per":1,"unit":"u","source":"https://x","confirmed":"aws-page"}}}"#;
        assert!(Prices::parse(text).unwrap_err().contains("x must"));
    }
}
