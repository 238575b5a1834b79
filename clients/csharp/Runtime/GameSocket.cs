using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.WebSockets;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets
{
    /// <summary>
    /// The WebSocket the client drives: <see cref="ClientWebSocketAdapter"/> by default, or any
    /// implementation (a test's scripted socket, another transport). The client calls
    /// ConnectAsync once, then ReceiveAsync from one loop and SendAsync / CloseAsync from
    /// another, never two sends at once.
    /// </summary>
    public interface IGameSocket
    {
        /// <summary>Opens the socket; <paramref name="headers"/> go with the upgrade request. A refused
        /// upgrade throws <see cref="SocketRefusedException"/>, with the HTTP status when it can be known.</summary>
        Task ConnectAsync(Uri uri, IList<KeyValuePair<string, string>> headers, CancellationToken cancel);

        Task SendAsync(string text, CancellationToken cancel);

        /// <summary>The next text message; null once the socket is closed (by either side, or dropped).</summary>
        Task<string> ReceiveAsync(CancellationToken cancel);

        /// <summary>Starts the close handshake; the receive side then ends.</summary>
        Task CloseAsync(int code, string reason, CancellationToken cancel);

        /// <summary>Drops the connection at once and frees it; safe to call more than once.</summary>
        void Abort();
    }

    /// <summary>The socket could not be opened; <see cref="Status"/> is the upgrade's HTTP status when known (401 and 403 stop the client).</summary>
    public sealed class SocketRefusedException : Exception
    {
        public int? Status { get; private set; }

        public SocketRefusedException(int? status, string message, Exception inner = null) : base(message, inner) { Status = status; }
    }

    /// <summary>
    /// <see cref="IGameSocket"/> over System.Net.WebSockets.ClientWebSocket (every Unity platform
    /// but WebGL, and .NET). Text messages of any size (fragments are joined); binary ones are skipped.
    /// </summary>
    public sealed class ClientWebSocketAdapter : IGameSocket
    {
        private static readonly Regex StatusInMessage = new Regex(@"'(\d{3})'");
        private readonly ClientWebSocket socket = new ClientWebSocket();
        private readonly byte[] buffer = new byte[16 * 1024];

        public async Task ConnectAsync(Uri uri, IList<KeyValuePair<string, string>> headers, CancellationToken cancel)
        {
            foreach (var header in headers) socket.Options.SetRequestHeader(header.Key, header.Value);
            try
            {
                await socket.ConnectAsync(uri, cancel).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                int? status = HandshakeStatus(error);
                if (status == null && !cancel.IsCancellationRequested) status = await HandshakeProbe.StatusAsync(uri, headers, cancel).ConfigureAwait(false);
                throw new SocketRefusedException(status, error.Message + (status != null ? " (the upgrade was answered " + status + ")" : ""), error);
            }
        }

        public Task SendAsync(string text, CancellationToken cancel)
        {
            var bytes = Encoding.UTF8.GetBytes(text);
            return socket.SendAsync(new ArraySegment<byte>(bytes), WebSocketMessageType.Text, true, cancel);
        }

        public async Task<string> ReceiveAsync(CancellationToken cancel)
        {
            try
            {
                while (true)
                {
                    using (var message = new MemoryStream())
                    {
                        WebSocketReceiveResult result;
                        do
                        {
                            result = await socket.ReceiveAsync(new ArraySegment<byte>(buffer), cancel).ConfigureAwait(false);
                            if (result.MessageType == WebSocketMessageType.Close) return null;
                            message.Write(buffer, 0, result.Count);
                        } while (!result.EndOfMessage);
                        if (result.MessageType == WebSocketMessageType.Text) return Encoding.UTF8.GetString(message.ToArray());
                    }
                }
            }
            catch (Exception)
            {
                // Dropped, aborted or cancelled: the socket is gone either way.
                return null;
            }
        }

        public Task CloseAsync(int code, string reason, CancellationToken cancel)
        {
            if (socket.State != WebSocketState.Open && socket.State != WebSocketState.CloseReceived) return Task.FromResult(0);
            // The close reason is at most 123 bytes of UTF-8.
            if (reason != null && reason.Length > 60) reason = reason.Substring(0, 60);
            return socket.CloseOutputAsync((WebSocketCloseStatus)code, reason, cancel);
        }

        public void Abort()
        {
            try { socket.Abort(); } catch (Exception) { /* already gone */ }
            socket.Dispose();
        }

        /// <summary>
        /// The HTTP status of a refused upgrade, from the exception. ClientWebSocket has no
        /// property for it on netstandard2.0: .NET puts it in the message ("The server returned
        /// status code '403' when status code '101' was expected"), some Mono versions a
        /// WebException with the response; Mono 6.8 (and Unity's) neither, so ConnectAsync then
        /// asks <see cref="HandshakeProbe"/>.
        /// </summary>
        public static int? HandshakeStatus(Exception error)
        {
            for (var e = error; e != null; e = e.InnerException)
            {
                var web = e as WebException;
                var response = web == null ? null : web.Response as HttpWebResponse;
                if (response != null) return (int)response.StatusCode;
                foreach (Match match in StatusInMessage.Matches(e.Message ?? ""))
                {
                    int status = int.Parse(match.Groups[1].Value);
                    if (status != 101) return status;
                }
            }
            return null;
        }
    }
}
