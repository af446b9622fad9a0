"""socket for the sandbox, which has no network: the constants and exception types code refers to (asyncio
needs them at import), and every way to make or use a socket raising OSError that says so."""

import errno as _errno

_NO_NETWORK = "the sandbox has no network: sockets are not available"

AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6 = 0, 1, 2, 10
SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_NONBLOCK, SOCK_CLOEXEC = 1, 2, 3, 2048, 524288
SOL_SOCKET, SOL_TCP, SOL_UDP = 1, 6, 17
SO_REUSEADDR, SO_ERROR, SO_BROADCAST, SO_KEEPALIVE, SO_REUSEPORT = 2, 4, 6, 9, 15
SO_SNDBUF, SO_RCVBUF, SO_TYPE, SO_LINGER = 7, 8, 3, 13
IPPROTO_IP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_IPV6 = 0, 6, 17, 41
IPV6_V6ONLY, TCP_NODELAY = 26, 1
SHUT_RD, SHUT_WR, SHUT_RDWR = 0, 1, 2
AI_PASSIVE, AI_CANONNAME, AI_NUMERICHOST, AI_NUMERICSERV, AI_ADDRCONFIG = 1, 2, 4, 1024, 32
NI_NUMERICHOST, NI_NUMERICSERV = 1, 2
INADDR_ANY, INADDR_LOOPBACK = 0, 0x7F000001
SOMAXCONN = 4096
MSG_PEEK, MSG_DONTWAIT, MSG_NOSIGNAL = 2, 64, 16384
has_ipv6 = False

error = OSError
timeout = TimeoutError
_GLOBAL_DEFAULT_TIMEOUT = object()  # http.client and urllib.request name it at import


class herror(OSError):
    pass


class gaierror(OSError):
    pass


def _refuse(*args, **kwargs):
    raise OSError(_errno.EACCES, _NO_NETWORK)


class socket:
    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        _refuse()


SocketType = socket
socketpair = create_connection = create_server = fromfd = getaddrinfo = getnameinfo = _refuse
gethostbyname = gethostbyname_ex = gethostbyaddr = getfqdn = getservbyname = getservbyport = _refuse
inet_aton = inet_ntoa = inet_pton = inet_ntop = _refuse


def gethostname():
    return "sandbox"


def getdefaulttimeout():
    return None


def setdefaulttimeout(timeout):
    pass
