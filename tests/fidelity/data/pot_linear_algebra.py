# ProgramOfThought: linear systems, least squares and matrix facts with np.linalg, including a singular matrix.
# %% solve a 3x3 system
import numpy as np
A = np.array([[2.0, 1.0, -1.0], [-3.0, -1.0, 2.0], [-2.0, 1.0, 2.0]])
b = np.array([8.0, -11.0, -3.0])
x = np.linalg.solve(A, b)
print(x)
print(np.allclose(A @ x, b))
x.round(6).tolist()
# %% determinant, inverse, rank
print(round(np.linalg.det(A), 6))
inv = np.linalg.inv(A)
print(inv.round(4))
print(np.linalg.matrix_rank(A), np.trace(A))
# %% a singular matrix
S = np.array([[1.0, 2.0], [2.0, 4.0]])
print("det:", np.linalg.det(S))
np.linalg.inv(S)
# %% catch the LinAlgError and use the pseudo-inverse
try:
    np.linalg.solve(S, np.array([1.0, 2.0]))
except np.linalg.LinAlgError as exc:
    print(type(exc).__name__, "-", exc)
    print(np.linalg.pinv(S).round(4))
# %% mismatched shapes in a product
M = np.ones((2, 3))
M @ np.ones((2, 3))
# %% eigenvalues of a symmetric matrix
C = np.array([[4.0, 1.0], [1.0, 3.0]])
vals, vecs = np.linalg.eigh(C)
print(vals.round(6))
print(np.abs(vecs).round(6))
# %% the general eigen decomposition
w, v = np.linalg.eig(np.array([[2.0, 0.0], [1.0, 3.0]]))
print(np.sort(w))
# %% least squares fit of a line
xs = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
ys = np.array([1.1, 2.9, 5.2, 7.1, 8.8])
X = np.column_stack([xs, np.ones_like(xs)])
coef, residuals, rank, sv = np.linalg.lstsq(X, ys, rcond=None)
print(coef.round(4), residuals.round(4), rank)
# %% norms and distances
p = np.array([3.0, 4.0])
q = np.array([0.0, 0.0])
print(np.linalg.norm(p), np.linalg.norm(p - q, ord=1), np.linalg.norm(p, np.inf))
pts = np.array([[0, 0], [3, 4], [6, 8], [1, 1]])
dist = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=-1))
print(dist.round(3))
# %% matrix power: Fibonacci
F = np.array([[1, 1], [1, 0]])
print(np.linalg.matrix_power(F, 10))
[int(np.linalg.matrix_power(F, n)[0, 1]) for n in range(1, 11)]
# %% singular values without unpacking a result
print(np.linalg.svd(np.array([[3.0, 0.0], [0.0, 4.0]]), compute_uv=False))
print(np.linalg.cond(np.array([[1.0, 2.0], [3.0, 4.0]])).round(4))
# %% outer products and einsum
u = np.array([1, 2, 3])
print(np.outer(u, u))
print(np.einsum("i,i->", u, u), np.dot(u, u), u @ u)
np.cross([1, 0, 0], [0, 1, 0])
