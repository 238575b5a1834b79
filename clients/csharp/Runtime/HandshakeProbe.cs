using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Security;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets
{
    /// <summary>
    /// Learns the HTTP status of a refused WebSocket upgrade when ClientWebSocket does not say it
    /// (Mono's, and so Unity's, reports every failed connect as "Unable to connect to the remote
    /// server"): sends the same upgrade request once more over a plain TCP (or TLS) stream and
    /// reads the status line. Only used after a failed connect, so that a refused token (401/403)
    /// stops the client instead of being retried with backoff forever.
    /// </summary>
    public static class HandshakeProbe
    {
        private static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(5);

        /// <summary>The upgrade's status (e.g. 401, 403), or null when it cannot be had (no
        /// connection, a timeout, or a 101: the server would accept this upgrade now).</summary>
        public static async Task<int?> StatusAsync(Uri uri, IList<KeyValuePair<string, string>> headers, CancellationToken cancel)
        {
            using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancel))
            using (var tcp = new TcpClient())
            {
                timeout.CancelAfter(ProbeTimeout);
                try
                {
                    using (timeout.Token.Register(() => tcp.Close()))
                    {
                        await tcp.ConnectAsync(uri.Host, uri.Port).ConfigureAwait(false);
                        Stream stream = tcp.GetStream();
                        if (uri.Scheme == "wss")
                        {
                            var tls = new SslStream(stream, false);
                            await tls.AuthenticateAsClientAsync(uri.Host).ConfigureAwait(false);
                            stream = tls;
                        }
                        var request = Encoding.ASCII.GetBytes(UpgradeRequest(uri, headers));
                        await stream.WriteAsync(request, 0, request.Length, timeout.Token).ConfigureAwait(false);
                        int status = await ReadStatus(stream, timeout.Token).ConfigureAwait(false);
                        return status == 101 || status == 0 ? (int?)null : status;
                    }
                }
                catch (Exception)
                {
                    return null;
                }
            }
        }

        private static string UpgradeRequest(Uri uri, IList<KeyValuePair<string, string>> headers)
        {
            var key = new byte[16];
            new Random().NextBytes(key);
            var request = new StringBuilder();
            request.Append("GET ").Append(uri.PathAndQuery).Append(" HTTP/1.1\r\n");
            request.Append("Host: ").Append(uri.IsDefaultPort ? uri.Host : uri.Host + ":" + uri.Port).Append("\r\n");
            request.Append("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n");
            request.Append("Sec-WebSocket-Key: ").Append(Convert.ToBase64String(key)).Append("\r\n");
            foreach (var header in headers) request.Append(header.Key).Append(": ").Append(header.Value).Append("\r\n");
            request.Append("\r\n");
            return request.ToString();
        }

        /// <summary>The status code of "HTTP/1.1 403 Forbidden"; 0 when the reply is not HTTP.</summary>
        private static async Task<int> ReadStatus(Stream stream, CancellationToken cancel)
        {
            var line = new StringBuilder();
            var one = new byte[1];
            while (line.Length < 200)
            {
                if (await stream.ReadAsync(one, 0, 1, cancel).ConfigureAwait(false) == 0) break;
                if (one[0] == '\n') break;
                line.Append((char)one[0]);
            }
            var parts = line.ToString().Split(' ');
            int status;
            return parts.Length >= 2 && parts[0].StartsWith("HTTP/", StringComparison.Ordinal) && int.TryParse(parts[1], out status) ? status : 0;
        }
    }
}
