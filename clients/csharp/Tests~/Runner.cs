using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>A scenario: an <c>async Task</c> method of a <see cref="Suite"/>, named for the behaviour it shows.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class ScenarioAttribute : Attribute
    {
        public string Name { get; private set; }
        public ScenarioAttribute(string name) { Name = name; }
    }

    /// <summary>Scenarios sharing a set-up (e.g. one local stack), run in the order they are written.</summary>
    public abstract class Suite
    {
        public virtual Task SetUp() { return Task.FromResult(0); }
        public virtual Task TearDown() { return Task.FromResult(0); }
    }

    /// <summary>A failed check, with what was expected.</summary>
    public sealed class CheckFailed : Exception
    {
        public CheckFailed(string message) : base(message) { }
    }

    /// <summary>
    /// The test runner (no third-party framework reaches this build): finds every Suite,
    /// runs its scenarios one at a time, prints one line each and closes with
    /// "N passed, M failed". Arguments filter scenarios by a part of "Suite: scenario".
    /// </summary>
    public static class Runner
    {
        private static readonly TimeSpan ScenarioTimeout = TimeSpan.FromSeconds(90);

        public static int Main(string[] args)
        {
            int passed = 0, failed = 0;
            var failures = new List<string>();
            var total = Stopwatch.StartNew();
            var suites = typeof(Runner).Assembly.GetTypes()
                .Where(t => t.IsSubclassOf(typeof(Suite)) && !t.IsAbstract)
                .OrderBy(t => t.GetCustomAttribute<OrderAttribute>() == null ? 100 : t.GetCustomAttribute<OrderAttribute>().Value)
                .ThenBy(t => t.Name);
            foreach (var type in suites)
            {
                var scenarios = type.GetMethods(BindingFlags.Public | BindingFlags.Instance)
                    .Where(m => m.GetCustomAttribute<ScenarioAttribute>() != null)
                    .OrderBy(m => m.MetadataToken)
                    .Where(m => args.Length == 0 || args.Any(a => (type.Name + ": " + m.GetCustomAttribute<ScenarioAttribute>().Name).Contains(a)))
                    .ToList();
                if (scenarios.Count == 0) continue;
                Console.WriteLine("# " + type.Name);
                var suite = (Suite)Activator.CreateInstance(type);
                Exception setUpError = Run(suite.SetUp);
                foreach (var method in scenarios)
                {
                    string name = type.Name + ": " + method.GetCustomAttribute<ScenarioAttribute>().Name;
                    var watch = Stopwatch.StartNew();
                    Exception error = setUpError ?? Run(() => (Task)method.Invoke(suite, null));
                    if (error == null)
                    {
                        passed++;
                        Console.WriteLine("ok   " + name + " (" + watch.ElapsedMilliseconds + " ms)");
                    }
                    else
                    {
                        failed++;
                        string why = (setUpError != null ? "set-up failed: " : "") + Describe(error);
                        failures.Add(name + "\n     " + why.Replace("\n", "\n     "));
                        Console.WriteLine("FAIL " + name + " (" + watch.ElapsedMilliseconds + " ms)\n     " + why.Replace("\n", "\n     "));
                    }
                }
                Exception tearDownError = Run(suite.TearDown);
                if (tearDownError != null) Console.WriteLine("     (tear-down: " + Describe(tearDownError) + ")");
            }
            Console.WriteLine();
            if (failures.Count > 0) Console.WriteLine("failed:\n  " + string.Join("\n  ", failures));
            Console.WriteLine("C# client tests took " + total.Elapsed.TotalSeconds.ToString("0.0") + " s");
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 && passed > 0 ? 0 : 1;
        }

        private static Exception Run(Func<Task> step)
        {
            try
            {
                var task = step();
                if (!task.Wait(ScenarioTimeout)) return new TimeoutException("did not finish within " + ScenarioTimeout.TotalSeconds + " s");
                return null;
            }
            catch (Exception error)
            {
                return Unwrap(error);
            }
        }

        private static Exception Unwrap(Exception error)
        {
            while ((error is AggregateException || error is TargetInvocationException) && error.InnerException != null) error = error.InnerException;
            return error;
        }

        private static string Describe(Exception error)
        {
            if (error is CheckFailed) return error.Message;
            return error.GetType().Name + ": " + error.Message + "\n" + error.StackTrace;
        }
    }

    /// <summary>Runs a suite before those without (lower first): cheap unit suites before the stack's.</summary>
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class OrderAttribute : Attribute
    {
        public int Value { get; private set; }
        public OrderAttribute(int value) { Value = value; }
    }
}
