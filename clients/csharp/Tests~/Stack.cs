using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// The real local stack (`cargo run -p local`'s binary, $LOCAL_STACK_BIN, which
    /// scripts/test-csharp.sh builds), started on a free port in JWT mode with an HS256 secret,
    /// as clients/typescript/test/stack.mjs starts it.
    /// </summary>
    public sealed class LocalStack
    {
        public const string Issuer = "https://issuer.example.com/";
        public const string Audience = "my-game";
        public const string Secret = "client-tests-secret-of-at-least-32-bytes";
        private static readonly Regex LiveLine = new Regex(@"resume: live player_id=(\S+) connection_id=(\S+)");
        private static readonly Regex UrlLine = new Regex(@"^WebSocket API:\s+(\S+)");
        private static int tokenCount;

        private readonly Process process;
        private readonly List<string> lines = new List<string>();
        private readonly Dictionary<string, string> liveConnections = new Dictionary<string, string>();
        private readonly TaskCompletionSource<string> started = new TaskCompletionSource<string>();

        public string Url { get; private set; }

        private LocalStack(Dictionary<string, string> env, string[] args)
        {
            string binary = Environment.GetEnvironmentVariable("LOCAL_STACK_BIN");
            if (string.IsNullOrEmpty(binary) || !File.Exists(binary))
                throw new InvalidOperationException("LOCAL_STACK_BIN must name the local stack's binary (scripts/test-csharp.sh builds it): `" + binary + "`");
            var info = new ProcessStartInfo(binary, string.Join(" ", args))
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            var settings = new Dictionary<string, string>
            {
                { "PORT", "0" }, { "RUST_LOG", "info" }, { "NO_COLOR", "1" }, { "AUTH_MODE", "jwt" },
                { "JWT_ISSUER", Issuer }, { "JWT_AUDIENCE", Audience }, { "JWT_HS256_SECRET", Secret },
                { "JWT_LEEWAY_SECONDS", "0" }, { "SIM_PLACEMENT_DELAY_MS", "100" }, { "SIM_SERVER_STARTUP_MS", "0" },
            };
            foreach (var pair in env) settings[pair.Key] = pair.Value;
            foreach (var pair in settings) info.EnvironmentVariables[pair.Key] = pair.Value;
            // On memory, whatever the caller's environment: scripts/test.sh exports
            // DYNAMODB_ENDPOINT, and stacks sharing DynamoDB Local's tables would see each
            // other's players (the TypeScript client's tests use the same names).
            if (!env.ContainsKey("DYNAMODB_ENDPOINT")) info.EnvironmentVariables.Remove("DYNAMODB_ENDPOINT");
            process = new Process { StartInfo = info, EnableRaisingEvents = true };
            process.OutputDataReceived += (_, e) => OnLine(e.Data);
            process.ErrorDataReceived += (_, e) => OnLine(e.Data);
            process.Exited += (_, e) => started.TrySetException(new InvalidOperationException("the stack exited:\n" + Log()));
        }

        /// <summary>Starts a stack; <paramref name="env"/> adds or overrides settings (e.g. MAX_CONNECTION_SECONDS).</summary>
        public static async Task<LocalStack> Start(Dictionary<string, string> env = null, params string[] args)
        {
            var stack = new LocalStack(env ?? new Dictionary<string, string>(), args);
            stack.process.Start();
            stack.process.BeginOutputReadLine();
            stack.process.BeginErrorReadLine();
            var timeout = Task.Delay(60000);
            if (await Task.WhenAny(stack.started.Task, timeout) == timeout)
            {
                stack.Stop();
                throw new TimeoutException("the stack did not start:\n" + stack.Log());
            }
            stack.Url = await stack.started.Task;
            return stack;
        }

        private void OnLine(string line)
        {
            if (line == null) return;
            lock (lines)
            {
                lines.Add(line);
                var live = LiveLine.Match(line);
                // The resume handler's log names each player's live connection.
                if (live.Success) liveConnections[live.Groups[1].Value] = live.Groups[2].Value;
            }
            var url = UrlLine.Match(line);
            if (url.Success) started.TrySetResult(url.Groups[1].Value);
        }

        public string Log()
        {
            lock (lines) return string.Join("\n", lines);
        }

        /// <summary>Closes <paramref name="player"/>'s socket from the server side (the management API's DeleteConnection).</summary>
        public async Task Drop(string player)
        {
            string id = null;
            // The log line may trail the resume ack a little.
            await Check.Until(() => { lock (lines) return liveConnections.TryGetValue(player, out id); }, "a live connection for " + player + " in the log", 5000);
            var url = Regex.Replace(Url, "^ws", "http") + "/@connections/" + Uri.EscapeDataString(id);
            for (int attempt = 1; ; attempt++)
            {
                var request = (HttpWebRequest)WebRequest.Create(url);
                request.Method = "DELETE";
                // A fresh connection each time, in a group of its own: Mono otherwise reuses an
                // idle one to the same host and port (an earlier stack's, when the port came
                // round again) that is closed, and the DELETE fails with "Error writing headers".
                request.KeepAlive = false;
                request.ConnectionGroupName = Guid.NewGuid().ToString("N");
                try
                {
                    using (var response = (HttpWebResponse)await request.GetResponseAsync())
                    {
                        if ((int)response.StatusCode != 204) throw new InvalidOperationException("DeleteConnection answered " + (int)response.StatusCode);
                        return;
                    }
                }
                catch (WebException e) when (attempt > 1 && e.Response is HttpWebResponse gone && (int)gone.StatusCode == 410)
                {
                    // An earlier attempt that got no answer reached the stack after all and
                    // closed the connection: what was asked.
                    return;
                }
                catch (WebException e) when (e.Response == null && attempt < 3)
                {
                    // No answer at all: sending it again is safe (a second close of the same
                    // connection answers 410, taken above as done).
                    await Task.Delay(100);
                }
            }
        }

        /// <summary>Freezes the whole stack (SIGSTOP) until <see cref="Resume"/>: nothing answers meanwhile.</summary>
        public void Pause() { Signal("STOP"); }

        public void Resume() { Signal("CONT"); }

        private void Signal(string name)
        {
            using (var kill = Process.Start("kill", "-" + name + " " + process.Id)) kill.WaitForExit();
        }

        public void Stop()
        {
            if (process.HasExited) return;
            Signal("CONT");
            Signal("TERM");
            if (!process.WaitForExit(5000)) process.Kill();
        }

        /// <summary>An HS256 JWT for <paramref name="sub"/>, as a token service sharing the stack's secret signs it; distinct each call.</summary>
        public static string MintToken(string sub, int lifetimeSeconds = 3600)
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
            string header = Base64Url(Encoding.UTF8.GetBytes("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"));
            var claims = new JsonObject
            {
                { "sub", sub }, { "iss", Issuer }, { "aud", Audience }, { "iat", now }, { "exp", now + lifetimeSeconds },
                { "jti", "t" + Interlocked.Increment(ref tokenCount) },
            };
            string body = Base64Url(Encoding.UTF8.GetBytes(Json.Serialize(claims)));
            using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(Secret)))
            {
                var signature = hmac.ComputeHash(Encoding.UTF8.GetBytes(header + "." + body));
                return header + "." + body + "." + Base64Url(signature);
            }
        }

        private static string Base64Url(byte[] bytes)
        {
            return Convert.ToBase64String(bytes).TrimEnd('=').Replace('+', '-').Replace('/', '_');
        }
    }
}
