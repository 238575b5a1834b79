using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>Checks that fail a scenario with what was expected and what was found.</summary>
    public static class Check
    {
        public static void True(bool condition, string what)
        {
            if (!condition) throw new CheckFailed(what);
        }

        public static void Equal<T>(T expected, T actual, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
                throw new CheckFailed(what + ": expected " + Show(expected) + ", got " + Show(actual));
        }

        public static void NotEqual<T>(T unexpected, T actual, string what)
        {
            if (EqualityComparer<T>.Default.Equals(unexpected, actual)) throw new CheckFailed(what + ": got " + Show(actual));
        }

        public static void Sequence<T>(IEnumerable<T> expected, IEnumerable<T> actual, string what)
        {
            var e = expected.ToList();
            var a = actual.ToList();
            if (!e.SequenceEqual(a)) throw new CheckFailed(what + ": expected [" + string.Join(", ", e.Select(x => Show(x))) + "], got [" + string.Join(", ", a.Select(x => Show(x))) + "]");
        }

        /// <summary>Awaits <paramref name="action"/> and returns the <see cref="GameSocketsException"/> it failed with.</summary>
        public static async Task<GameSocketsException> Fails(Func<Task> action, string what)
        {
            try
            {
                await action();
            }
            catch (GameSocketsException error)
            {
                return error;
            }
            catch (Exception error)
            {
                throw new CheckFailed(what + ": expected a GameSocketsException, got " + error.GetType().Name + ": " + error.Message);
            }
            throw new CheckFailed(what + ": expected it to fail, it succeeded");
        }

        public static async Task<GameSocketsException> FailsWith(string code, Func<Task> action, string what)
        {
            var error = await Fails(action, what);
            Equal(code, error.Code, what + " (code; message: " + error.Message + ")");
            return error;
        }

        /// <summary>Polls until <paramref name="done"/> holds; fails after <paramref name="ms"/> naming <paramref name="what"/>.</summary>
        public static async Task Until(Func<bool> done, string what, int ms = 20000)
        {
            var watch = Stopwatch.StartNew();
            while (!done())
            {
                if (watch.ElapsedMilliseconds > ms) throw new CheckFailed("timed out after " + ms + " ms waiting for " + what);
                await Task.Delay(10);
            }
        }

        public static Task Sleep(int ms) { return Task.Delay(ms); }

        private static string Show(object value)
        {
            if (value == null) return "null";
            if (value is string) return "\"" + value + "\"";
            return value.ToString();
        }
    }
}
