package dev.leasehold.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.ClassReader;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.ClassVisitor;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.MethodVisitor;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.Opcodes;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A class that holds no lock of its own: no {@code volatile} field, no {@code synchronized} method
 * or block (read from the bytecode: a {@code monitorenter}), no {@code wait}/{@code notify}, and no
 * use of {@code java.util.concurrent.locks} or {@code java.util.concurrent.atomic}.
 */
final class HoldsNoLock extends ArchCondition<JavaClass> {
  private static final Set<String> MONITOR_CALLS = Set.of("wait", "notify", "notifyAll");

  HoldsNoLock() {
    super("use no synchronized, volatile, lock or atomic");
  }

  @Override
  public void check(JavaClass c, ConditionEvents events) {
    List<String> found = new ArrayList<>();
    for (JavaField f : c.getFields()) {
      if (f.getModifiers().contains(JavaModifier.VOLATILE)) {
        found.add("volatile field " + f.getName());
      }
    }
    for (JavaMethod m : c.getMethods()) {
      if (m.getModifiers().contains(JavaModifier.SYNCHRONIZED)) {
        found.add("synchronized method " + m.getName());
      }
    }
    c.getMethodCallsFromSelf().stream()
        .filter(call -> call.getTargetOwner().isEquivalentTo(Object.class))
        .filter(call -> MONITOR_CALLS.contains(call.getName()))
        .forEach(call -> found.add("calls Object." + call.getName()));
    c.getDirectDependenciesFromSelf().stream()
        .map(d -> d.getTargetClass().getPackageName())
        .filter(
            p ->
                p.startsWith("java.util.concurrent.locks")
                    || p.startsWith("java.util.concurrent.atomic"))
        .distinct()
        .forEach(p -> found.add("uses " + p));
    found.addAll(synchronizedBlocks(c));
    for (String what : found) {
      events.add(SimpleConditionEvent.violated(c, c.getName() + ": " + what));
    }
    if (found.isEmpty()) {
      events.add(SimpleConditionEvent.satisfied(c, c.getName() + " holds no lock"));
    }
  }

  /** The methods with a {@code synchronized} block, from the class file. */
  private static List<String> synchronizedBlocks(JavaClass c) {
    List<String> found = new ArrayList<>();
    String resource = "/" + c.getName().replace('.', '/') + ".class";
    try (InputStream in = c.reflect().getResourceAsStream(resource)) {
      if (in == null) {
        return found;
      }
      new ClassReader(in)
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(
                    int access, String name, String desc, String signature, String[] exceptions) {
                  return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitInsn(int opcode) {
                      if (opcode == Opcodes.MONITORENTER) {
                        found.add("synchronized block in " + name);
                      }
                    }
                  };
                }
              },
              ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    } catch (IOException e) {
      found.add("class file unreadable: " + e);
    }
    return found.stream().distinct().toList();
  }
}
