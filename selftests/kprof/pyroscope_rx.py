#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A Pyroscope /ingest receiver for the daemon's guest test: listens on
# 127.0.0.1 (an ephemeral port, written to PORTFILE), checks each request
# against Pyroscope's documented /ingest parameters (POST /ingest; name,
# from, until required; name APP{KEY=VALUE,...}; from <= until, Unix
# seconds; format pprof; sampleRate a number; nothing undocumented; the
# body raw and gzip'd), and appends one JSON line per request to LOG:
# {"status", "name", "from", "until", "rate", "bytes", "bad"}.  With
# --fail N, the first N well-formed requests get 503 (the server cannot
# take them now); bad ones always get 400.
#
# Usage: pyroscope_rx.py PORTFILE LOG [--fail N]

import gzip
import json
import re
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

DOCUMENTED = {'name', 'from', 'until', 'format', 'sampleRate', 'spyName', 'units',
              'aggregationType'}
NAME_RE = re.compile(r'^[A-Za-z0-9_.-]+\{([A-Za-z0-9_]+=[^,{}=]+(,[A-Za-z0-9_]+=[^,{}=]+)*)?\}$')


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def check(self, url, body):
        if self.command != 'POST' or url.path != '/ingest':
            return 'not POST /ingest'
        q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        extra = set(q) - DOCUMENTED
        if extra:
            return 'undocumented parameters %s' % sorted(extra)
        for k in ('name', 'from', 'until'):
            if k not in q:
                return 'no %s' % k
        if not NAME_RE.match(q['name'][0]):
            return 'bad name %r' % q['name'][0]
        if not (q['from'][0].isdigit() and q['until'][0].isdigit()):
            return 'from/until not Unix seconds'
        if int(q['from'][0]) > int(q['until'][0]):
            return 'from after until'
        if q.get('format', ['pprof'])[0] != 'pprof':
            return 'format %r' % q['format'][0]
        if 'sampleRate' in q and not q['sampleRate'][0].isdigit():
            return 'bad sampleRate'
        try:
            gzip.decompress(body)
        except OSError:
            return 'the body is not gzip'
        return None

    def do_POST(self):
        url = urllib.parse.urlparse(self.path)
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        bad = self.check(url, body)
        q = urllib.parse.parse_qs(url.query)
        status = 400 if bad else 503 if self.server.fail > 0 else 200
        if not bad and self.server.fail > 0:
            self.server.fail -= 1
        rec = {'status': status, 'bad': bad, 'bytes': len(body),
               'name': q.get('name', [''])[0],
               'from': int(q.get('from', ['0'])[0] or 0),
               'until': int(q.get('until', ['0'])[0] or 0),
               'rate': int(q.get('sampleRate', ['0'])[0] or 0)}
        with open(self.server.log, 'a') as f:
            f.write(json.dumps(rec) + '\n')
        self.send_response(status)
        self.send_header('Content-Length', '0')
        self.end_headers()

    do_GET = do_POST


def main():
    portfile, log = sys.argv[1], sys.argv[2]
    fail = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == '--fail' else 0
    srv = HTTPServer(('127.0.0.1', 0), Handler)
    srv.fail = fail
    srv.log = log
    with open(portfile + '.tmp', 'w') as f:
        f.write('%d\n' % srv.server_port)
    import os
    os.rename(portfile + '.tmp', portfile)
    srv.serve_forever()


if __name__ == '__main__':
    main()
