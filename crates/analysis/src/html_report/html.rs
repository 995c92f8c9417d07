//! Escaping, and the few shapes of HTML the report is made of (tables, key–value lists,
//! preformatted text). Every text that comes from a scenario, a summary or a CSV cell goes
//! through [`escape`]; markup is only ever written by this crate, so a scenario named
//! `<script>…` shows as text and runs nothing.

use std::fmt::Write;

/// `text` made safe for element content and for quoted attribute values: the five
/// characters HTML gives a meaning there (`&`, `<`, `>`, `"`, `'`) as character references
/// (HTML Living Standard §13.1.2.6 and §13.1.4: with these escaped, text cannot open a tag,
/// close an attribute or start a reference).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// A fragment of HTML: built from escaped text and this crate's own markup only, so other
/// crates (a reproduction's report) can add sections without being able to inject markup.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    /// Markup written by this crate; never pass text from outside here unescaped.
    pub(crate) fn markup(markup: String) -> Html {
        Html(markup)
    }

    /// Plain text, escaped.
    pub fn text(text: &str) -> Html {
        Html(escape(text))
    }

    /// Paragraphs of plain text: blank lines separate them.
    pub fn paragraphs(text: &str) -> Html {
        let mut out = String::new();
        for paragraph in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
            let _ = write!(out, "<p>{}</p>", escape(paragraph));
        }
        Html(out)
    }

    /// Preformatted text (a scenario file).
    pub fn preformatted(text: &str) -> Html {
        Html(format!("<pre class=\"source\">{}</pre>", escape(text)))
    }

    /// A table: a header row and rows of cells, as text. Cells that are numbers are set to
    /// the right. Wide tables scroll sideways in their own box (phone screens).
    pub fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> Html {
        let mut out = String::from("<div class=\"table-wrap\"><table><thead><tr>");
        for h in header {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr></thead><tbody>");
        for row in rows {
            push_row(&mut out, row.as_ref());
        }
        out.push_str("</tbody></table></div>");
        Html(out)
    }

    /// Two columns, name and value.
    pub fn key_values(pairs: &[(String, String)]) -> Html {
        let mut out = String::from("<div class=\"table-wrap\"><table class=\"kv\"><tbody>");
        for (key, value) in pairs {
            let _ = write!(
                out,
                "<tr><th scope=\"row\">{}</th><td{}>{}</td></tr>",
                escape(key),
                numeric_class(value),
                escape(value)
            );
        }
        out.push_str("</tbody></table></div>");
        Html(out)
    }

    /// A note in smaller type; spans between backticks are set as code (commands, columns).
    pub fn note(text: &str) -> Html {
        let mut out = String::from("<p class=\"note\">");
        for (i, part) in text.split('`').enumerate() {
            if i % 2 == 1 {
                let _ = write!(out, "<code>{}</code>", escape(part));
            } else {
                out.push_str(&escape(part));
            }
        }
        out.push_str("</p>");
        Html(out)
    }

    /// A heading inside a section.
    pub fn heading(text: &str) -> Html {
        Html(format!("<h3>{}</h3>", escape(text)))
    }

    pub fn push(&mut self, other: Html) {
        self.0.push_str(&other.0);
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One `<tr>` of escaped cells.
pub(crate) fn push_row(out: &mut String, cells: &[String]) {
    out.push_str("<tr>");
    for cell in cells {
        let _ = write!(out, "<td{}>{}</td>", numeric_class(cell), escape(cell));
    }
    out.push_str("</tr>");
}

fn numeric_class(cell: &str) -> &'static str {
    if !cell.is_empty() && cell.parse::<f64>().is_ok() {
        " class=\"n\""
    } else {
        ""
    }
}

/// A section id: lower-case letters, digits and `-` only (safe in an attribute and a URL
/// fragment without escaping).
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("section");
    }
    out
}

/// JSON text made safe inside a `<script>` element: `<` as `\u003c`, so that neither
/// `</script` nor `<!--` can occur (HTML §4.12.1.3, restrictions for contents of script
/// elements). Outside JSON strings `<` never occurs, and inside them `\u003c` means `<`.
pub fn script_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}
