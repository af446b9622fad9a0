# ProgramOfThought doing linear algebra with nested lists: products, determinants, solving systems with Fractions.
# %% a 3x3 system from a word problem
# 2 apples + 3 bananas + 1 cherry = 13 ; 1 apple + 1 banana + 2 cherries = 9 ; 3 apples + 1 banana + 1 cherry = 10
A = [[2, 3, 1], [1, 1, 2], [3, 1, 1]]
b = [13, 9, 10]
for row, rhs in zip(A, b):
    print(" ".join(f"{v:>3}" for v in row), "|", f"{rhs:>3}")

# %% helpers
Matrix = list[list[float]]

def matmul(X: Matrix, Y: Matrix) -> Matrix:
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*Y)] for row in X]

def transpose(X: Matrix) -> Matrix:
    return [list(col) for col in zip(*X)]

def identity(n: int) -> Matrix:
    return [[int(i == j) for j in range(n)] for i in range(n)]

print(transpose(A))
print(matmul(A, identity(3)) == A, matmul(A, transpose(A)))

# %% determinant by cofactor expansion
def det(M: Matrix):
    if len(M) == 1:
        return M[0][0]
    if len(M) == 2:
        return M[0][0] * M[1][1] - M[0][1] * M[1][0]
    return sum((-1) ** j * M[0][j] * det([row[:j] + row[j + 1:] for row in M[1:]]) for j in range(len(M)))

print(det(A), det([[1, 2], [3, 4]]), det(identity(4)), det([[2, 0, 0, 0], [0, 3, 0, 0], [0, 0, 4, 0], [0, 0, 0, 5]]))

# %% Gauss-Jordan with exact fractions
from fractions import Fraction

def solve(M: Matrix, rhs: list) -> list[Fraction]:
    n = len(M)
    aug = [[Fraction(v) for v in row] + [Fraction(r)] for row, r in zip(M, rhs)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if aug[r][col] != 0)
        aug[col], aug[pivot] = aug[pivot], aug[col]
        p = aug[col][col]
        aug[col] = [v / p for v in aug[col]]
        for r in range(n):
            if r != col:
                factor = aug[r][col]
                aug[r] = [a - factor * c for a, c in zip(aug[r], aug[col])]
    return [row[-1] for row in aug]

x = solve(A, b)
print(x, [str(v) for v in x], [float(v) for v in x])
print([sum(a * v for a, v in zip(row, x)) for row in A] == b)

# %% a singular system (mistake: no pivot found)
S = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
solve(S, [6, 12, 2])

# %% detect singularity first, and a float version dividing by zero
print(det(S))
def solve_float(M, rhs):
    n = len(M)
    aug = [list(map(float, row)) + [float(r)] for row, r in zip(M, rhs)]
    for col in range(n):
        p = aug[col][col]
        aug[col] = [v / p for v in aug[col]]
        for r in range(n):
            if r != col:
                f = aug[r][col]
                aug[r] = [a - f * c for a, c in zip(aug[r], aug[col])]
    return [row[-1] for row in aug]

print(solve_float(A, b))
solve_float(S, [6, 12, 2])

# %% matrix power: Fibonacci numbers with big integers
def matpow(M: Matrix, k: int) -> Matrix:
    result = identity(len(M))
    while k:
        if k & 1:
            result = matmul(result, M)
        M = matmul(M, M)
        k >>= 1
    return result

F = matpow([[1, 1], [1, 0]], 300)
print(F[0][1], len(str(F[0][1])), F[0][1] % 1_000_000_007)
print([matpow([[1, 1], [1, 0]], n)[0][1] for n in range(12)])

# %% inverse with Fractions and a check
def inverse(M: Matrix) -> Matrix:
    n = len(M)
    cols = [solve(M, [int(i == j) for i in range(n)]) for j in range(n)]
    return transpose(cols)

Ainv = inverse(A)
for row in Ainv:
    print("  ".join(f"{str(v):>6}" for v in row))
print(matmul(A, Ainv) == identity(3), det(Ainv), Fraction(1, det(A)))

# %% shape mismatch (mistake)
B = [[1, 2], [3, 4], [5, 6]]
C = matmul(B, B)
print(C)
C[2][2]

# %% rotation matrix and rounding noise
import math
theta = math.radians(90)
R = [[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]]
print(R)
p = matmul(R, [[1.0], [0.0]])
print(p, [[round(v, 12) for v in row] for row in p], [[round(v, 12) + 0.0 for v in row] for row in p])
print(f"{R[0][0]:.3e}", f"{R[0][0]:.2f}", math.cos(math.pi / 2) == 0, math.isclose(math.cos(math.pi / 2), 0, abs_tol=1e-12))

# %% trace, Frobenius norm, and the answer
trace = sum(A[i][i] for i in range(3))
frob = math.sqrt(sum(v * v for row in A for v in row))
print(trace, frob, math.hypot(*[v for row in A for v in row]), f"{frob:.6f}")
SUBMIT(apples=str(x[0]), bananas=str(x[1]), cherries=str(x[2]), det=det(A), fib300_mod=F[0][1] % 1_000_000_007)
