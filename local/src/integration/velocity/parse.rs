//! Template text → nodes (see the parent module for what is understood).

use super::{Expr, Node, Op, Reference, V};

#[derive(Debug)]
pub(super) enum Stop {
    Eof,
    Else,
    ElseIf(Expr),
    End,
    /// The closing `"` of an interpolated string.
    Quote,
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) pos: usize,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        let shown: String = self.rest().chars().take(30).collect();
        Err(format!("{what} at byte {} (before {shown:?})", self.pos))
    }

    fn eat(&mut self, prefix: &str) -> bool {
        if self.rest().starts_with(prefix) {
            self.pos += prefix.len();
            true
        } else {
            false
        }
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// A directive keyword not followed by more of a name (`#else` but not `#elsewhere`).
    fn keyword(&mut self, word: &str) -> bool {
        let rest = self.rest();
        if rest.starts_with(word) && !rest[word.len()..].starts_with(is_name) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// Nodes up to the end, an `#else`/`#elseif`/`#end`, or (in a string) a `"`.
    pub(super) fn nodes(&mut self, in_string: bool) -> Result<(Vec<Node>, Stop), String> {
        let mut nodes = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            if in_string && c == '"' {
                self.pos += 1;
                flush(&mut text, &mut nodes);
                return Ok((nodes, Stop::Quote));
            }
            if c == '$' {
                let after = &self.rest()[1..];
                let quiet = after.starts_with('!');
                let name_at = if quiet { &after[1..] } else { after };
                if name_at.starts_with(is_name_start) {
                    flush(&mut text, &mut nodes);
                    let start = self.pos;
                    let reference = self.reference()?;
                    let source = self.src[start..self.pos].to_owned();
                    nodes.push(Node::Reference { reference, source });
                    continue;
                }
            }
            if c == '#' {
                let at = self.pos;
                self.pos += 1;
                if self.eat("set(") {
                    flush(&mut text, &mut nodes);
                    self.skip_spaces();
                    if !self.eat("$") {
                        return self.error("#set needs a $variable");
                    }
                    let name = self.name()?;
                    self.skip_spaces();
                    if !self.eat("=") {
                        return self.error("#set needs =");
                    }
                    let value = self.expression()?;
                    self.close_paren()?;
                    nodes.push(Node::Set(name, value));
                    continue;
                }
                if self.eat("if(") {
                    flush(&mut text, &mut nodes);
                    nodes.push(self.if_chain()?);
                    continue;
                }
                if self.eat("elseif(") {
                    flush(&mut text, &mut nodes);
                    let condition = self.expression()?;
                    self.close_paren()?;
                    return Ok((nodes, Stop::ElseIf(condition)));
                }
                if self.keyword("else") {
                    flush(&mut text, &mut nodes);
                    return Ok((nodes, Stop::Else));
                }
                if self.keyword("end") {
                    flush(&mut text, &mut nodes);
                    return Ok((nodes, Stop::End));
                }
                // Not a directive this parser knows (`#status` in a DynamoDB expression):
                // text, as Velocity leaves it.
                self.pos = at;
            }
            text.push(c);
            self.pos += c.len_utf8();
        }
        if in_string {
            return self.error("a string that never closes");
        }
        flush(&mut text, &mut nodes);
        Ok((nodes, Stop::Eof))
    }

    fn if_chain(&mut self) -> Result<Node, String> {
        let mut condition = self.expression()?;
        self.close_paren()?;
        let mut branches = Vec::new();
        loop {
            let (body, stop) = self.nodes(false)?;
            branches.push((condition, body));
            match stop {
                Stop::ElseIf(next) => condition = next,
                Stop::Else => {
                    let (otherwise, stop) = self.nodes(false)?;
                    if !matches!(stop, Stop::End) {
                        return self.error("#else without #end");
                    }
                    return Ok(Node::If(branches, otherwise));
                }
                Stop::End => return Ok(Node::If(branches, Vec::new())),
                Stop::Eof | Stop::Quote => return self.error("#if without #end"),
            }
        }
    }

    fn close_paren(&mut self) -> Result<(), String> {
        self.skip_spaces();
        if self.eat(")") {
            Ok(())
        } else {
            self.error("expected )")
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.pos;
        if !self.peek().is_some_and(is_name_start) {
            return self.error("expected a name");
        }
        while self.peek().is_some_and(is_name) {
            self.pos += 1;
        }
        Ok(self.src[start..self.pos].to_owned())
    }

    /// `$name`, `$!name`, then `.part` / `.method(arguments)`.
    fn reference(&mut self) -> Result<Reference, String> {
        self.eat("$");
        let quiet = self.eat("!");
        let name = self.name()?;
        let mut parts = Vec::new();
        while self.rest().starts_with('.') && self.rest()[1..].starts_with(is_name_start) {
            self.pos += 1;
            let part = self.name()?;
            let arguments = if self.eat("(") {
                let mut list = Vec::new();
                self.skip_spaces();
                if !self.eat(")") {
                    loop {
                        list.push(self.expression()?);
                        self.skip_spaces();
                        if self.eat(",") {
                            continue;
                        }
                        self.close_paren()?;
                        break;
                    }
                }
                Some(list)
            } else {
                None
            };
            parts.push((part, arguments));
        }
        Ok(Reference { quiet, name, parts })
    }

    fn expression(&mut self) -> Result<Expr, String> {
        self.binary(0)
    }

    /// Precedence climbing over `||`, `&&`, equality, comparison.
    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        const LEVELS: [&[(&str, Op)]; 4] = [
            &[("||", Op::Or)],
            &[("&&", Op::And)],
            &[("==", Op::Eq), ("!=", Op::Ne)],
            &[("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            self.skip_spaces();
            let Some((token, op)) = LEVELS[level]
                .iter()
                .find(|(token, _)| self.rest().starts_with(token))
            else {
                return Ok(left);
            };
            self.pos += token.len();
            let right = self.binary(level + 1)?;
            left = Expr::Binary(Box::new(left), *op, Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.skip_spaces();
        if self.rest().starts_with('!') && !self.rest().starts_with("!=") {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.expression()?;
            self.close_paren()?;
            return Ok(inner);
        }
        if self.eat("'") {
            let end = self
                .rest()
                .find('\'')
                .ok_or_else(|| format!("a ' string that never closes at byte {}", self.pos))?;
            let text = self.rest()[..end].to_owned();
            self.pos += end + 1;
            return Ok(Expr::Literal(V::Str(text)));
        }
        if self.eat("\"") {
            let (nodes, _) = self.nodes(true)?;
            return Ok(Expr::Interpolated(nodes));
        }
        if self.rest().starts_with('$') {
            return Ok(Expr::Reference(self.reference()?));
        }
        if self.keyword("true") {
            return Ok(Expr::Literal(V::Bool(true)));
        }
        if self.keyword("false") {
            return Ok(Expr::Literal(V::Bool(false)));
        }
        if self.keyword("null") {
            return Ok(Expr::Literal(V::Null));
        }
        let start = self.pos;
        self.eat("-");
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        match self.src[start..self.pos].parse::<i64>() {
            Ok(n) => Ok(Expr::Literal(V::Int(n))),
            Err(_) => {
                self.pos = start;
                self.error("expected a value")
            }
        }
    }
}

fn flush(text: &mut String, nodes: &mut Vec<Node>) {
    if !text.is_empty() {
        nodes.push(Node::Text(std::mem::take(text)));
    }
}
