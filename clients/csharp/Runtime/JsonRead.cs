using System;
using System.Collections.Generic;

namespace GameLiftSockets
{
    /// <summary>
    /// Lenient field readers for the generated protocol types: a missing or mistyped field
    /// reads as null (or the type's default) instead of throwing, so a frame from a newer or
    /// odd server is still handed on; the frame's <c>Raw</c> keeps every field as received.
    /// </summary>
    public static class JsonRead
    {
        public static string String(JsonObject json, string key) { return json == null ? null : json[key] as string; }
        public static long? Long(JsonObject json, string key) { return json == null ? null : Json.ToLong(json[key]); }
        public static double? Double(JsonObject json, string key) { return json == null ? null : Json.ToDouble(json[key]); }

        public static bool? Bool(JsonObject json, string key)
        {
            object value = json == null ? null : json[key];
            return value is bool ? (bool?)(bool)value : null;
        }

        public static object Any(JsonObject json, string key) { return json == null ? null : json[key]; }

        public static List<T> List<T>(JsonObject json, string key, Func<object, T> item)
        {
            var values = json == null ? null : json[key] as List<object>;
            if (values == null) return null;
            var list = new List<T>(values.Count);
            foreach (var value in values) list.Add(item(value));
            return list;
        }

        public static Dictionary<string, T> Map<T>(JsonObject json, string key, Func<object, T> item)
        {
            var values = json == null ? null : json[key] as JsonObject;
            if (values == null) return null;
            var map = new Dictionary<string, T>();
            foreach (var field in values) map[field.Key] = item(field.Value);
            return map;
        }

        // Item readers for lists and maps.
        public static string AsString(object value) { return value as string; }
        public static long AsLong(object value) { return Json.ToLong(value) ?? 0; }
        public static double AsDouble(object value) { return Json.ToDouble(value) ?? 0; }
        public static bool AsBool(object value) { return value is bool && (bool)value; }
        public static object AsAny(object value) { return value; }
    }
}
