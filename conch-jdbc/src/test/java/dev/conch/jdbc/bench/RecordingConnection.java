package dev.conch.jdbc.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * A connection that passes every call to a real one and writes down each statement executed through
 * it, with its parameters written in as SQL literals: what {@code JdbcFence.check} sends, read from
 * the code that runs rather than copied by hand.
 */
final class RecordingConnection {

  private static final Set<String> EXECUTE =
      Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

  private final List<String> executed = new ArrayList<>();

  /** The real connection, recorded. */
  Connection wrap(Connection real) {
    return proxy(Connection.class, real, null);
  }

  /** Every statement executed so far, in order, with literals in place of its parameters. */
  List<String> executed() {
    return List.copyOf(executed);
  }

  private <T> T proxy(Class<T> type, Object real, String sql) {
    TreeMap<Integer, Object> parameters = new TreeMap<>();
    InvocationHandler handler =
        (self, method, args) -> {
          String name = method.getName();
          if (name.startsWith("set")
              && args != null
              && args.length == 2
              && args[0] instanceof Integer index) {
            parameters.put(index, args[1]);
          }
          if (EXECUTE.contains(name)) {
            if (args != null && args.length > 0 && args[0] instanceof String direct) {
              executed.add(direct);
            } else if (sql != null) {
              executed.add(literal(sql, parameters));
            }
          }
          Object result = invoke(method, real, args);
          if ((name.equals("prepareStatement") || name.equals("prepareCall"))
              && args != null
              && args[0] instanceof String prepared) {
            return proxy(PreparedStatement.class, result, prepared);
          }
          if (name.equals("createStatement")) {
            return proxy(Statement.class, result, null);
          }
          return result;
        };
    return type.cast(
        Proxy.newProxyInstance(
            RecordingConnection.class.getClassLoader(), new Class<?>[] {type}, handler));
  }

  private static Object invoke(Method method, Object real, Object[] args) throws Throwable {
    try {
      return method.invoke(real, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** {@code sql} with its {@code ?} replaced by the parameters, in order, as SQL literals. */
  private static String literal(String sql, TreeMap<Integer, Object> parameters) {
    StringBuilder out = new StringBuilder();
    int next = 1;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        Object value = parameters.get(next++);
        out.append(
            value instanceof Number || value instanceof Boolean
                ? value.toString()
                : "'" + String.valueOf(value).replace("'", "''") + "'");
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }
}
