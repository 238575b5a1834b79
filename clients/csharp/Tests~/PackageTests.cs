using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>The folder layout Unity's Package Manager reads, the language version, and that every route has a method.</summary>
    [Order(0)]
    public sealed class UnityPackage : Suite
    {
        private static string PackageDir { get { return Environment.GetEnvironmentVariable("CSHARP_CLIENT_DIR"); } }
        private static string BuildDir { get { return Environment.GetEnvironmentVariable("CSHARP_BUILD_DIR"); } }

        [Scenario("given package.json, then it has what the Package Manager needs: a reverse-domain name, a semver version, the Unity version, and samples under Samples~")]
        public Task PackageManifest()
        {
            var manifest = Json.ParseObject(File.ReadAllText(Path.Combine(PackageDir, "package.json")));
            string name = manifest.GetString("name");
            Check.True(name != null && name.Length <= 214 && Regex.IsMatch(name, @"^com\.[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$"), "a lowercase reverse-domain name: " + name);
            Check.True(Regex.IsMatch(manifest.GetString("version") ?? "", @"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$"), "a semver version");
            Check.True(!string.IsNullOrEmpty(manifest.GetString("displayName")) && !string.IsNullOrEmpty(manifest.GetString("description")), "displayName and description");
            Check.True(Regex.IsMatch(manifest.GetString("unity") ?? "", @"^\d{4}\.\d+$"), "unity is MAJOR.MINOR: " + manifest.GetString("unity"));
            Check.True(manifest.GetObject("dependencies") == null || manifest.GetObject("dependencies").Count == 0, "no dependencies");
            var samples = manifest.GetArray("samples");
            Check.True(samples != null && samples.Count > 0, "a sample");
            foreach (JsonObject sample in samples)
            {
                string path = sample.GetString("path") ?? "";
                Check.True(path.StartsWith("Samples~/", StringComparison.Ordinal), "a sample lives under Samples~ (hidden until imported): " + path);
                Check.True(Directory.Exists(Path.Combine(PackageDir, path)) && Directory.GetFiles(Path.Combine(PackageDir, path), "*.cs").Length > 0, "the sample's folder has scripts: " + path);
                Check.True(!string.IsNullOrEmpty(sample.GetString("displayName")) && !string.IsNullOrEmpty(sample.GetString("description")), "the sample's displayName and description");
            }
            return Task.FromResult(0);
        }

        [Scenario("given Runtime/, then one .asmdef names the assembly, references nothing and no engine API, and the sources use only System and the package's namespaces")]
        public Task AssemblyDefinition()
        {
            var asmdefs = Directory.GetFiles(Path.Combine(PackageDir, "Runtime"), "*.asmdef");
            Check.Equal(1, asmdefs.Length, "one .asmdef in Runtime/");
            var asmdef = Json.ParseObject(File.ReadAllText(asmdefs[0]));
            Check.Equal("GameLiftSockets", asmdef.GetString("name"), "the assembly's name");
            Check.Equal(Path.GetFileNameWithoutExtension(asmdefs[0]), asmdef.GetString("name"), "the file is named after the assembly");
            Check.Equal(0, (asmdef.GetArray("references") ?? new List<object>()).Count, "no assembly references");
            Check.Equal(0, (asmdef.GetArray("precompiledReferences") ?? new List<object>()).Count, "no precompiled (third-party) DLLs");
            Check.Equal(true, asmdef.GetBool("noEngineReferences"), "no UnityEngine: it runs in .NET servers and tools too");
            Check.True((asmdef.GetArray("includePlatforms") ?? new List<object>()).Count == 0 || (asmdef.GetArray("excludePlatforms") ?? new List<object>()).Count == 0,
                "includePlatforms and excludePlatforms are not both set");
            foreach (var source in Directory.GetFiles(Path.Combine(PackageDir, "Runtime"), "*.cs"))
            {
                var text = File.ReadAllText(source);
                foreach (Match use in Regex.Matches(text, @"^using\s+([A-Za-z.]+)\s*;", RegexOptions.Multiline))
                {
                    string ns = use.Groups[1].Value;
                    Check.True(ns == "System" || ns.StartsWith("System.", StringComparison.Ordinal) || ns.StartsWith("GameLiftSockets", StringComparison.Ordinal),
                        Path.GetFileName(source) + " uses " + ns + ": only System and GameLiftSockets");
                }
                Check.True(!Regex.IsMatch(text, @"\basync\s+void\b"), Path.GetFileName(source) + " has no `async void` (its exceptions would be lost)");
                Check.True(Regex.IsMatch(text, @"namespace GameLiftSockets\b"), Path.GetFileName(source) + " is in the GameLiftSockets namespace (the asmdef's rootNamespace)");
            }
            return Task.FromResult(0);
        }

        [Scenario("given every file and folder Unity imports, then each has a .meta with a unique GUID (an immutable git package ignores assets without one), and no .meta is orphaned")]
        public Task MetaFiles()
        {
            var guids = new Dictionary<string, string>();
            foreach (var path in Imported(PackageDir))
            {
                string meta = path + ".meta";
                Check.True(File.Exists(meta), Relative(path) + " has no .meta: Unity ignores it in a package added from git (copy a sibling's with a new GUID)");
                var text = File.ReadAllText(meta);
                var guid = Regex.Match(text, @"^guid: ([0-9a-f]{32})\s*$", RegexOptions.Multiline);
                Check.True(guid.Success, Relative(meta) + " has a 32-hex-digit guid");
                string other;
                Check.True(!guids.TryGetValue(guid.Groups[1].Value, out other), Relative(meta) + " reuses the GUID of " + other);
                guids[guid.Groups[1].Value] = Relative(meta);
                Check.Equal(Directory.Exists(path), text.Contains("folderAsset: yes"), Relative(meta) + " says folderAsset exactly when it is a folder");
            }
            foreach (var meta in Directory.GetFiles(PackageDir, "*.meta", SearchOption.AllDirectories).Where(m => Visible(m)))
            {
                string target = meta.Substring(0, meta.Length - ".meta".Length);
                Check.True(File.Exists(target) || Directory.Exists(target), Relative(meta) + " describes nothing");
            }
            return Task.FromResult(0);
        }

        [Scenario("given the sample, then it compiles at C# 7.2 against the runtime and UnityEngine's surface, calls DispatchEvents from Update, and has no async void")]
        public Task SampleCompiles()
        {
            var sample = Directory.GetFiles(Path.Combine(PackageDir, "Samples~"), "*.cs", SearchOption.AllDirectories);
            var text = string.Join("\n", sample.Select(File.ReadAllText));
            Check.True(Regex.IsMatch(text, @"void Update\(\)[^}]*DispatchEvents\(\)"), "Update calls DispatchEvents");
            Check.True(!Regex.IsMatch(text, @"\basync\s+void\b"), "no async void");
            var stub = Path.Combine(PackageDir, "Tests~", "Unity", "UnityEngineStub.cs");
            var result = Mcs("-target:library", "-r:" + Path.Combine(BuildDir, "GameLiftSockets.dll"), "-out:" + Path.Combine(BuildDir, "sample.dll"), Quote(stub), string.Join(" ", sample.Select(Quote)));
            Check.True(result.Key == 0, "the sample compiles:\n" + result.Value);
            return Task.FromResult(0);
        }

        [Scenario("given mcs -langversion:7.2, then C# 8 and 7.3 constructs fail to compile and C# 7.2 ones compile: newer syntax cannot slip into the package")]
        public Task LanguageVersionIsEnforced()
        {
            var refused = new Dictionary<string, string>
            {
                { "C# 8 ??=", "class C { static void M() { int? x = null; x ??= 1; } }" },
                { "C# 8 switch expression", "class C { static int M(int x) => x switch { 1 => 2, _ => 3 }; }" },
                { "C# 7.3 tuple ==", "class C { static bool M() { return (1, 2) == (1, 2); } }" },
                { "C# 7.3 Enum constraint", "class C { static void M<T>() where T : System.Enum { } }" },
            };
            foreach (var snippet in refused) Check.True(CompileSnippet(snippet.Value) != 0, snippet.Key + " must not compile at -langversion:7.2");
            Check.Equal(0, CompileSnippet("readonly struct P { public readonly int X; } class C { private protected int Y = 1; static int M(in P p) { return p.X; } }"), "C# 7.2 (readonly struct, in, private protected) compiles");
            return Task.FromResult(0);
        }

        [Scenario("given every route of protocol/schema.json, then the client has a method for it (ping and resume are the client's own)")]
        public Task EveryRouteHasAMethod()
        {
            var named = new Dictionary<string, string>
            {
                { Routes.SessionPlacementRequest, "RequestPlacementAsync" },
                { Routes.Resume, "ConnectAsync" }, // sent on every connect
                { Routes.Ping, "EffectiveKeepAlive" }, // the keep-alive timer's; never a request
            };
            var members = new HashSet<string>(typeof(GameSocketsClient).GetMembers(BindingFlags.Public | BindingFlags.Instance).Select(m => m.Name));
            foreach (var route in Routes.All)
            {
                string method;
                if (!named.TryGetValue(route, out method)) method = char.ToUpperInvariant(route[0]) + route.Substring(1) + "Async";
                Check.True(members.Contains(method), "route `" + route + "` has no method " + method + " on GameSocketsClient: add one in GameSocketsClient.Routes.cs");
            }
            return Task.FromResult(0);
        }

        private static int CompileSnippet(string code)
        {
            var file = Path.Combine(BuildDir, "snippet.cs");
            File.WriteAllText(file, code);
            return Mcs("-target:library", "-out:" + Path.Combine(BuildDir, "snippet.dll"), Quote(file)).Key;
        }

        private static KeyValuePair<int, string> Mcs(params string[] args)
        {
            var info = new ProcessStartInfo("mcs", "-langversion:7.2 -nologo " + string.Join(" ", args))
            {
                UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true,
            };
            using (var mcs = Process.Start(info))
            {
                var output = mcs.StandardOutput.ReadToEndAsync();
                var errors = mcs.StandardError.ReadToEnd();
                mcs.WaitForExit();
                return new KeyValuePair<int, string>(mcs.ExitCode, output.Result + errors);
            }
        }

        private static string Quote(string path) { return "\"" + path + "\""; }

        /// <summary>What Unity imports from a package: everything but .meta files and hidden (`.x`) or `x~` files and folders.</summary>
        private static IEnumerable<string> Imported(string dir)
        {
            foreach (var entry in Directory.GetFileSystemEntries(dir).OrderBy(e => e, StringComparer.Ordinal))
            {
                var name = Path.GetFileName(entry);
                if (name.StartsWith(".", StringComparison.Ordinal) || name.EndsWith("~", StringComparison.Ordinal) || name.EndsWith(".meta", StringComparison.Ordinal)) continue;
                yield return entry;
                if (Directory.Exists(entry)) foreach (var inner in Imported(entry)) yield return inner;
            }
        }

        private static bool Visible(string path)
        {
            return Relative(path).Split('/').All(part => !part.StartsWith(".", StringComparison.Ordinal) && !part.EndsWith("~", StringComparison.Ordinal));
        }

        private static string Relative(string path) { return path.Substring(PackageDir.Length).TrimStart('/'); }
    }
}
