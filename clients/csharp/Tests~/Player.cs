using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// A client for one player whose token provider mints a fresh token per connect and records
    /// them, and which records every event (raised at once: the tests have no game loop).
    /// </summary>
    public sealed class Player
    {
        public readonly GameSocketsClient Client;
        private readonly object seen = new object();
        private readonly List<string> tokens = new List<string>();
        private readonly List<ServerFrame> frames = new List<ServerFrame>();
        private readonly List<ConnectionState> states = new List<ConnectionState>();
        private readonly List<ResumeAck> resumes = new List<ResumeAck>();
        private readonly List<ClosedInfo> closed = new List<ClosedInfo>();
        private int rollovers;

        public Player(LocalStack stack, string id, Action<ClientOptions> configure = null, int tokenLifetimeSeconds = 3600)
        {
            var options = new ClientOptions
            {
                Url = stack.Url,
                Token = () =>
                {
                    string token = LocalStack.MintToken(id, tokenLifetimeSeconds);
                    lock (seen) tokens.Add(token);
                    return Task.FromResult(token);
                },
                Reconnect = new ReconnectOptions { InitialDelay = TimeSpan.FromMilliseconds(50), MaxDelay = TimeSpan.FromMilliseconds(400) },
                RequestTimeout = TimeSpan.FromSeconds(5),
                DispatchImmediately = true,
            };
            if (configure != null) configure(options);
            Client = new GameSocketsClient(options);
            Client.Frame += frame => { lock (seen) frames.Add(frame); };
            Client.StateChanged += change => { lock (seen) states.Add(change.State); };
            Client.Resumed += ack => { lock (seen) resumes.Add(ack); };
            Client.Closed += info => { lock (seen) closed.Add(info); };
            Client.RolledOver += ack => { lock (seen) rollovers++; };
        }

        public List<string> Tokens { get { lock (seen) return tokens.ToList(); } }
        public List<ConnectionState> States { get { lock (seen) return states.ToList(); } }
        public List<ResumeAck> Resumes { get { lock (seen) return resumes.ToList(); } }
        public List<ClosedInfo> ClosedEvents { get { lock (seen) return closed.ToList(); } }
        public int Rollovers { get { lock (seen) return rollovers; } }

        /// <summary>The pushed frames of one class, in the order they were handed on.</summary>
        public List<T> Pushed<T>() where T : ServerFrame
        {
            lock (seen) return frames.OfType<T>().ToList();
        }

        public List<MessageFrame> Messages { get { return Pushed<MessageFrame>(); } }

        /// <summary>Waits for the first pushed frame of class T that <paramref name="wanted"/> accepts.</summary>
        public async Task<T> Next<T>(Func<T, bool> wanted, string what) where T : ServerFrame
        {
            T found = null;
            await Check.Until(() => (found = Pushed<T>().FirstOrDefault(wanted)) != null, what);
            return found;
        }

        public Task<ResumeAck> Connect() { return Client.ConnectAsync(); }

        public void Close() { Client.Close(); }

        /// <summary>The `n` field of each message received, in order.</summary>
        public List<long> MessageNumbers()
        {
            return Messages.Select(m => ((JsonObject)m.Message).GetLong("n") ?? -1).ToList();
        }
    }
}
