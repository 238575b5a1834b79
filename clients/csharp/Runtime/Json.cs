using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace GameLiftSockets
{
    /// <summary>A JSON text that could not be read; says what was wrong and where.</summary>
    public sealed class JsonException : Exception
    {
        public JsonException(string message) : base(message) { }
    }

    /// <summary>
    /// A value the protocol's generated types can write as a JSON object (request bodies,
    /// and every frame type, so a frame can be sent on or logged as it was received).
    /// </summary>
    public interface IJsonObject
    {
        JsonObject ToJson();
    }

    /// <summary>
    /// A JSON object that keeps its keys in order (frames are written `route` first, as the
    /// other clients do). Values are null, bool, long (integers), double, string,
    /// <see cref="List{T}"/> of object, or JsonObject.
    /// </summary>
    public sealed class JsonObject : IEnumerable<KeyValuePair<string, object>>
    {
        private readonly List<string> order = new List<string>();
        private readonly Dictionary<string, object> values = new Dictionary<string, object>();

        public int Count { get { return order.Count; } }
        public IEnumerable<string> Keys { get { return order; } }

        /// <summary>The value of <paramref name="key"/>, or null when absent; setting adds or replaces.</summary>
        public object this[string key]
        {
            get { object value; return values.TryGetValue(key, out value) ? value : null; }
            set
            {
                if (!values.ContainsKey(key)) order.Add(key);
                values[key] = value;
            }
        }

        public bool ContainsKey(string key) { return values.ContainsKey(key); }
        public bool TryGetValue(string key, out object value) { return values.TryGetValue(key, out value); }

        public bool Remove(string key)
        {
            if (!values.Remove(key)) return false;
            order.Remove(key);
            return true;
        }

        /// <summary>Sets <paramref name="key"/> to <paramref name="value"/>, or removes it when the value is null (an optional field left out).</summary>
        public void SetOrRemove(string key, object value)
        {
            if (value != null) this[key] = value; else Remove(key);
        }

        /// <summary>Adds a field (collection initializers: <c>new JsonObject { { "a", 1 } }</c>).</summary>
        public void Add(string key, object value) { this[key] = value; }

        public string GetString(string key) { return this[key] as string; }
        public long? GetLong(string key) { return Json.ToLong(this[key]); }
        public double? GetDouble(string key) { return Json.ToDouble(this[key]); }
        public bool? GetBool(string key) { object v = this[key]; return v is bool ? (bool?)(bool)v : null; }
        public JsonObject GetObject(string key) { return this[key] as JsonObject; }
        public List<object> GetArray(string key) { return this[key] as List<object>; }

        /// <summary>A shallow copy.</summary>
        public JsonObject Clone()
        {
            var copy = new JsonObject();
            foreach (var key in order) copy[key] = values[key];
            return copy;
        }

        public IEnumerator<KeyValuePair<string, object>> GetEnumerator()
        {
            foreach (var key in order) yield return new KeyValuePair<string, object>(key, values[key]);
        }

        IEnumerator IEnumerable.GetEnumerator() { return GetEnumerator(); }

        public override string ToString() { return Json.Serialize(this); }
    }

    /// <summary>
    /// A small JSON reader and writer (RFC 8259), so the package needs no third-party library;
    /// Unity's JsonUtility cannot read these frames (open-ended objects, any-JSON messages).
    /// </summary>
    public static class Json
    {
        private const int MaxDepth = 128;

        /// <summary>Reads one JSON value; throws <see cref="JsonException"/> naming the position of a fault.</summary>
        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var reader = new Reader(text);
            reader.SkipWhitespace();
            object value = reader.ReadValue(0);
            reader.SkipWhitespace();
            if (!reader.AtEnd) throw reader.Fail("unexpected text after the JSON value");
            return value;
        }

        /// <summary>Reads one JSON object; anything else is a <see cref="JsonException"/>.</summary>
        public static JsonObject ParseObject(string text)
        {
            var value = Parse(text) as JsonObject;
            if (value == null) throw new JsonException("expected a JSON object");
            return value;
        }

        /// <summary>
        /// Writes <paramref name="value"/>: null, bool, numbers, strings, dictionaries with string
        /// keys, <see cref="JsonObject"/>, <see cref="IJsonObject"/> and sequences. Anything else,
        /// or a NaN or infinite number, is an <see cref="ArgumentException"/> naming it.
        /// </summary>
        public static string Serialize(object value)
        {
            var builder = new StringBuilder();
            Write(builder, value, 0);
            return builder.ToString();
        }

        /// <summary>An integral JSON number as long (a double only when it is a whole number); else null.</summary>
        public static long? ToLong(object value)
        {
            if (value is long) return (long)value;
            if (value is int) return (int)value;
            if (value is double)
            {
                double d = (double)value;
                if (Math.Floor(d) == d && Math.Abs(d) < 9.2e18) return (long)d;
            }
            return null;
        }

        /// <summary>A JSON number as double; else null.</summary>
        public static double? ToDouble(object value)
        {
            if (value is double) return (double)value;
            if (value is long) return (long)value;
            if (value is int) return (int)value;
            return null;
        }

        private static void Write(StringBuilder b, object value, int depth)
        {
            if (depth > MaxDepth) throw new ArgumentException("the value nests deeper than " + MaxDepth + " levels (a cycle?)");
            if (value == null) { b.Append("null"); return; }
            if (value is string) { WriteString(b, (string)value); return; }
            if (value is bool) { b.Append((bool)value ? "true" : "false"); return; }
            if (value is double || value is float)
            {
                double d = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d)) throw new ArgumentException("JSON has no NaN or infinite numbers: " + d);
                b.Append(d.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (value is long || value is int || value is short || value is byte || value is sbyte ||
                value is ulong || value is uint || value is ushort || value is decimal)
            {
                b.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
                return;
            }
            if (value is IJsonObject) { Write(b, ((IJsonObject)value).ToJson(), depth + 1); return; }
            var obj = value as JsonObject;
            if (obj != null)
            {
                b.Append('{');
                bool first = true;
                foreach (var field in obj)
                {
                    if (!first) b.Append(',');
                    first = false;
                    WriteString(b, field.Key);
                    b.Append(':');
                    Write(b, field.Value, depth + 1);
                }
                b.Append('}');
                return;
            }
            var dict = value as IDictionary;
            if (dict != null)
            {
                b.Append('{');
                bool first = true;
                foreach (DictionaryEntry entry in dict)
                {
                    var key = entry.Key as string;
                    if (key == null) throw new ArgumentException("a JSON object's keys are strings, not " + entry.Key.GetType().Name);
                    if (!first) b.Append(',');
                    first = false;
                    WriteString(b, key);
                    b.Append(':');
                    Write(b, entry.Value, depth + 1);
                }
                b.Append('}');
                return;
            }
            var list = value as IEnumerable;
            if (list != null)
            {
                b.Append('[');
                bool first = true;
                foreach (var item in list)
                {
                    if (!first) b.Append(',');
                    first = false;
                    Write(b, item, depth + 1);
                }
                b.Append(']');
                return;
            }
            throw new ArgumentException("cannot write a " + value.GetType().FullName +
                " as JSON: pass null, a bool, a number, a string, a dictionary, a JsonObject or a list");
        }

        private static void WriteString(StringBuilder b, string s)
        {
            b.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': b.Append("\\\""); break;
                    case '\\': b.Append("\\\\"); break;
                    case '\n': b.Append("\\n"); break;
                    case '\r': b.Append("\\r"); break;
                    case '\t': b.Append("\\t"); break;
                    default:
                        if (c < 0x20) b.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else b.Append(c);
                        break;
                }
            }
            b.Append('"');
        }

        private sealed class Reader
        {
            private readonly string text;
            private int pos;

            public Reader(string text) { this.text = text; }

            public bool AtEnd { get { return pos >= text.Length; } }

            public JsonException Fail(string what)
            {
                return new JsonException(what + " at character " + (pos + 1));
            }

            public void SkipWhitespace()
            {
                while (pos < text.Length && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) pos++;
            }

            public object ReadValue(int depth)
            {
                if (depth > MaxDepth) throw Fail("JSON nested deeper than " + MaxDepth + " levels");
                if (AtEnd) throw Fail("expected a value, found the end of the text");
                char c = text[pos];
                switch (c)
                {
                    case '{': return ReadObject(depth);
                    case '[': return ReadArray(depth);
                    case '"': return ReadString();
                    case 't': Expect("true"); return true;
                    case 'f': Expect("false"); return false;
                    case 'n': Expect("null"); return null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                        throw Fail("unexpected '" + c + "'");
                }
            }

            private void Expect(string word)
            {
                if (string.CompareOrdinal(text, pos, word, 0, word.Length) != 0) throw Fail("expected " + word);
                pos += word.Length;
            }

            private JsonObject ReadObject(int depth)
            {
                var obj = new JsonObject();
                pos++;
                SkipWhitespace();
                if (!AtEnd && text[pos] == '}') { pos++; return obj; }
                while (true)
                {
                    SkipWhitespace();
                    if (AtEnd || text[pos] != '"') throw Fail("expected a quoted key");
                    string key = ReadString();
                    SkipWhitespace();
                    if (AtEnd || text[pos] != ':') throw Fail("expected ':' after a key");
                    pos++;
                    SkipWhitespace();
                    obj[key] = ReadValue(depth + 1);
                    SkipWhitespace();
                    if (AtEnd) throw Fail("unterminated object");
                    if (text[pos] == ',') { pos++; continue; }
                    if (text[pos] == '}') { pos++; return obj; }
                    throw Fail("expected ',' or '}'");
                }
            }

            private List<object> ReadArray(int depth)
            {
                var list = new List<object>();
                pos++;
                SkipWhitespace();
                if (!AtEnd && text[pos] == ']') { pos++; return list; }
                while (true)
                {
                    SkipWhitespace();
                    list.Add(ReadValue(depth + 1));
                    SkipWhitespace();
                    if (AtEnd) throw Fail("unterminated array");
                    if (text[pos] == ',') { pos++; continue; }
                    if (text[pos] == ']') { pos++; return list; }
                    throw Fail("expected ',' or ']'");
                }
            }

            private string ReadString()
            {
                pos++; // the opening quote
                var b = new StringBuilder();
                while (true)
                {
                    if (AtEnd) throw Fail("unterminated string");
                    char c = text[pos++];
                    if (c == '"') return b.ToString();
                    if (c < 0x20) { pos--; throw Fail("a control character inside a string"); }
                    if (c != '\\') { b.Append(c); continue; }
                    if (AtEnd) throw Fail("unterminated escape");
                    char e = text[pos++];
                    switch (e)
                    {
                        case '"': b.Append('"'); break;
                        case '\\': b.Append('\\'); break;
                        case '/': b.Append('/'); break;
                        case 'b': b.Append('\b'); break;
                        case 'f': b.Append('\f'); break;
                        case 'n': b.Append('\n'); break;
                        case 'r': b.Append('\r'); break;
                        case 't': b.Append('\t'); break;
                        case 'u':
                            int code;
                            if (pos + 4 > text.Length || !int.TryParse(text.Substring(pos, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out code))
                                throw Fail("a \\u escape needs four hex digits");
                            b.Append((char)code);
                            pos += 4;
                            break;
                        default: pos--; throw Fail("unknown escape '\\" + e + "'");
                    }
                }
            }

            private object ReadNumber()
            {
                int start = pos;
                if (text[pos] == '-') pos++;
                bool integral = true;
                if (!AtEnd && text[pos] == '0') pos++;
                else if (!Digits()) throw Fail("expected digits");
                if (!AtEnd && text[pos] == '.')
                {
                    integral = false;
                    pos++;
                    if (!Digits()) throw Fail("expected digits after '.'");
                }
                if (!AtEnd && (text[pos] == 'e' || text[pos] == 'E'))
                {
                    integral = false;
                    pos++;
                    if (!AtEnd && (text[pos] == '+' || text[pos] == '-')) pos++;
                    if (!Digits()) throw Fail("expected digits in the exponent");
                }
                string literal = text.Substring(start, pos - start);
                long whole;
                if (integral && long.TryParse(literal, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out whole)) return whole;
                return double.Parse(literal, NumberStyles.Float, CultureInfo.InvariantCulture);
            }

            private bool Digits()
            {
                int start = pos;
                while (!AtEnd && text[pos] >= '0' && text[pos] <= '9') pos++;
                return pos > start;
            }
        }
    }
}
