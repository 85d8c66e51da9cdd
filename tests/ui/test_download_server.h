#pragma once
// A tiny HTTP/1.1 file server on 127.0.0.1 for the download tests: GET with Range, 404s, and
// scripted faults (drop the connection mid-file once, serve wrong bytes, stall, redirect with
// Hugging Face's X-Linked-* headers).
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>

class TestHttpServer : public QTcpServer {
 public:
  struct Request {
    QByteArray path;
    QByteArray range;  // raw Range header value, empty when absent
  };

  QHash<QByteArray, QByteArray> files;   // path -> body
  QHash<QByteArray, qint64> drop_once;   // path -> bytes to send before dropping (once)
  QHash<QByteArray, qint64> stall;       // path -> bytes to send, then hold the connection
  QSet<QByteArray> corrupt;              // path -> serve the body with one byte flipped
  QHash<QByteArray, QByteArray> redirect_sha;  // path -> 302 to /cdn<path> with X-Linked-ETag
  QList<Request> requests;

  bool Start() {
    connect(this, &QTcpServer::newConnection, this, [this] {
      while (QTcpSocket* s = nextPendingConnection()) {
        connect(s, &QTcpSocket::readyRead, this, [this, s] { OnData(s); });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
      }
    });
    return listen(QHostAddress::LocalHost, 0);
  }
  QByteArray Base() const { return "http://127.0.0.1:" + QByteArray::number(serverPort()); }

 private:
  QHash<QTcpSocket*, QByteArray> pending_;

  void OnData(QTcpSocket* s) {
    QByteArray& buf = pending_[s];
    buf += s->readAll();
    const qsizetype end = buf.indexOf("\r\n\r\n");
    if (end < 0) return;
    const QList<QByteArray> lines = buf.left(end).split('\n');
    buf.remove(0, end + 4);
    Request req;
    req.path = lines.value(0).split(' ').value(1);
    for (const QByteArray& l : lines) {
      if (l.toLower().startsWith("range:")) req.range = l.mid(6).trimmed();
    }
    requests.append(req);
    Serve(s, req);
  }

  static void Send(QTcpSocket* s, const QByteArray& head, const QByteArray& body) {
    s->write(head + "\r\n" + body);
    s->flush();
  }

  void Serve(QTcpSocket* s, const Request& req) {
    QByteArray path = req.path;
    if (redirect_sha.contains(path)) {
      Send(s, "HTTP/1.1 302 Found\r\nLocation: /cdn" + path + "\r\nX-Linked-Size: " +
                  QByteArray::number(files.value(path).size()) + "\r\nX-Linked-ETag: \"" +
                  redirect_sha.value(path) + "\"\r\nContent-Length: 0\r\n",
           {});
      return;
    }
    if (path.startsWith("/cdn/")) path = path.mid(4);
    if (!files.contains(path)) {
      Send(s, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n", "not found");
      return;
    }
    QByteArray body = files.value(path);
    if (corrupt.contains(path)) body[body.size() / 2] = static_cast<char>(body[body.size() / 2] ^ 0x5a);
    const qint64 total = body.size();
    qint64 first = 0;
    QByteArray head;
    if (req.range.startsWith("bytes=")) {
      first = req.range.mid(6).split('-').value(0).toLongLong();
      if (first >= total) {
        Send(s, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
                    QByteArray::number(total) + "\r\nContent-Length: 0\r\n", {});
        return;
      }
      head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + QByteArray::number(first) +
             "-" + QByteArray::number(total - 1) + "/" + QByteArray::number(total) + "\r\n";
    } else {
      head = "HTTP/1.1 200 OK\r\n";
    }
    body = body.mid(first);
    head += "Accept-Ranges: bytes\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    if (drop_once.contains(path)) {
      const qint64 n = drop_once.take(path);
      Send(s, head, body.left(n));
      s->disconnectFromHost();  // sends what is queued, then closes: a short body
      return;
    }
    if (stall.contains(path)) {
      Send(s, head, body.left(stall.take(path)));
      return;  // keep the connection open without sending the rest
    }
    Send(s, head, body);
  }
};
